"""Placement's failures, each carrying the stable error code its API answers with.

They are novalite exceptions (`code` is the status the API answers), so the common request
wrapper renders them without a translation table; `error_code` is placement's
machine-readable name, shown to clients from microversion 1.23.
"""

from __future__ import annotations

from novalite import exception

DEFAULT = "placement.undefined_code"
INVENTORY_INUSE = "placement.inventory.inuse"
CONCURRENT_UPDATE = "placement.concurrent_update"
DUPLICATE_NAME = "placement.duplicate_name"
PROVIDER_IN_USE = "placement.resource_provider.inuse"
PROVIDER_CANNOT_DELETE_PARENT = "placement.resource_provider.cannot_delete_parent"
RESOURCE_PROVIDER_NOT_FOUND = "placement.resource_provider.not_found"
ILLEGAL_DUPLICATE_QUERYPARAM = "placement.query.duplicate_key"
QUERYPARAM_BAD_VALUE = "placement.query.bad_value"
QUERYPARAM_MISSING_VALUE = "placement.query.missing_value"


class PlacementError(exception.NovaliteException):
    safe = True
    error_code = DEFAULT

    def __init__(self, message: str, error_code: str | None = None) -> None:
        super().__init__(message)
        if error_code:
            self.error_code = error_code


class BadRequest(PlacementError):
    code = 400


class NotFound(PlacementError):
    code = 404


class Conflict(PlacementError):
    code = 409


class ConcurrentUpdate(Conflict):
    """A generation named by the caller (or read by us) changed underneath."""

    error_code = CONCURRENT_UPDATE


class InventoryInUse(Conflict):
    error_code = INVENTORY_INUSE
