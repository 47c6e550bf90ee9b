"""Making a flavor (Nova's compute.flavors.create): the rules every new flavor obeys,
whoever asks — RAM and vCPUs at least 1, disks and swap at least 0, a positive
rxtx_factor, a generated UUID when no ID is given. A flavor's creation, every change (its
description, extra specs, access list) and its deletion are notified as Nova's Flavor
object notifies them (flavor.create, flavor.update, flavor.delete)."""

from __future__ import annotations

import uuid

from novalite import exception, strutils
from novalite.db.api import flavors as db
from novalite.notifications import events
from novalite.notifications.objects.flavor import FlavorPayload
from novalite.objects.flavor import Flavor

MAX_INT = 0x7FFFFFFF  # the INT columns' ceiling
SQL_SP_FLOAT_MAX = 3.40282e38  # the FLOAT column's ceiling



def _integer(value: int | str, name: str, minimum: int) -> int:
    try:
        number = int(str(value))
    except ValueError:
        raise exception.InvalidInput(reason=f"{name} must be an integer") from None
    if number < minimum:
        raise exception.InvalidInput(reason=f"{name} must be >= {minimum}")
    if number > MAX_INT:
        raise exception.InvalidInput(reason=f"{name} must be <= {MAX_INT}")
    return number


def _rxtx_factor(value: float | str) -> float:
    try:
        factor = float(value)
        if not 0 < factor <= SQL_SP_FLOAT_MAX:
            raise ValueError(value)
    except ValueError:
        raise exception.InvalidInput(reason="'rxtx_factor' argument must be a float between "
                                            f"0 and {SQL_SP_FLOAT_MAX:g}") from None
    return factor


def _boolean(value: bool | str) -> bool:
    if isinstance(value, bool):
        return value
    parsed = strutils.parse_bool(value)
    if parsed is None:
        raise exception.InvalidInput(reason="is_public must be a boolean")
    return parsed


def create(name: str, memory: int | str, vcpus: int | str, root_gb: int | str,
           ephemeral_gb: int | str = 0, flavorid: str | float | None = None,
           swap: int | str = 0, rxtx_factor: float | str = 1.0,
           is_public: bool | str = True, description: str | None = None) -> Flavor:
    """Raises InvalidInput, FlavorExists (name) or FlavorIdExists."""
    flavor = db.flavor_create(Flavor(
        flavorid=str(flavorid) if flavorid else str(uuid.uuid4()),  # Nova: any falsy id
        name=name.strip(),
        memory_mb=_integer(memory, "ram", 1),
        vcpus=_integer(vcpus, "vcpus", 1),
        root_gb=_integer(root_gb, "disk", 0),
        ephemeral_gb=_integer(ephemeral_gb, "ephemeral", 0),
        swap=_integer(swap, "swap", 0),
        rxtx_factor=_rxtx_factor(rxtx_factor),
        is_public=_boolean(is_public),
        description=description,
    ))
    events.send("flavor.create", lambda: FlavorPayload.from_flavor(flavor, projects=[]))
    return flavor


def notify_update(flavorid: str) -> None:
    """flavor.update: the flavor as the change left it, with its access list (both read
    only when notifications are sent)."""
    events.send("flavor.update", lambda: FlavorPayload.from_flavor(
        db.flavor_get_by_flavorid(flavorid), projects=db.flavor_access_get(flavorid)))


def notify_delete(flavor: Flavor) -> None:
    events.send("flavor.delete", lambda: FlavorPayload.from_flavor(flavor))
