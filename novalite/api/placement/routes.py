"""The placement API's route table: (path, method, handler, authenticated)."""

from __future__ import annotations

from novalite.api.placement import (
    aggregates,
    allocation_candidates,
    allocations,
    errors,
    inventories,
    microversions,
    reshaper,
    resource_classes,
    resource_providers,
    root,
    traits,
    usages,
)
from novalite.api.profile import ApiProfile

PROFILE = ApiProfile(
    mount="/placement",
    fault=errors.fault_response,
    negotiate=microversions.negotiate,
    version_headers=microversions.response_headers,
    fmt_version=microversions.fmt,
)

RP = "/resource_providers/{uuid}"
ROUTES = [
    ("/", "GET", root.versions, False),
    ("/resource_providers", "GET", resource_providers.index, True),
    ("/resource_providers", "POST", resource_providers.create, True),
    (RP, "GET", resource_providers.show, True),
    (RP, "PUT", resource_providers.update, True),
    (RP, "DELETE", resource_providers.delete, True),
    (f"{RP}/inventories", "GET", inventories.index, True),
    (f"{RP}/inventories", "POST", inventories.create, True),
    (f"{RP}/inventories", "PUT", inventories.replace_all, True),
    (f"{RP}/inventories", "DELETE", inventories.delete_all, True),
    (f"{RP}/inventories/{{resource_class}}", "GET", inventories.show, True),
    (f"{RP}/inventories/{{resource_class}}", "PUT", inventories.update, True),
    (f"{RP}/inventories/{{resource_class}}", "DELETE", inventories.delete, True),
    (f"{RP}/usages", "GET", usages.provider_index, True),
    (f"{RP}/allocations", "GET", allocations.provider_index, True),
    (f"{RP}/aggregates", "GET", aggregates.index, True),
    (f"{RP}/aggregates", "PUT", aggregates.update, True),
    (f"{RP}/traits", "GET", traits.provider_index, True),
    (f"{RP}/traits", "PUT", traits.provider_update, True),
    (f"{RP}/traits", "DELETE", traits.provider_delete, True),
    ("/resource_classes", "GET", resource_classes.index, True),
    ("/resource_classes", "POST", resource_classes.create, True),
    ("/resource_classes/{name}", "GET", resource_classes.show, True),
    ("/resource_classes/{name}", "PUT", resource_classes.update, True),
    ("/resource_classes/{name}", "DELETE", resource_classes.delete, True),
    ("/traits", "GET", traits.index, True),
    ("/traits/{name}", "GET", traits.show, True),
    ("/traits/{name}", "PUT", traits.update, True),
    ("/traits/{name}", "DELETE", traits.delete, True),
    ("/allocations", "POST", allocations.create_many, True),
    ("/allocations/{consumer_uuid}", "GET", allocations.show, True),
    ("/allocations/{consumer_uuid}", "PUT", allocations.update, True),
    ("/allocations/{consumer_uuid}", "DELETE", allocations.delete, True),
    ("/usages", "GET", usages.index, True),
    ("/reshaper", "POST", reshaper.reshape, True),
    ("/allocation_candidates", "GET", allocation_candidates.list_allocation_candidates, True),
]
