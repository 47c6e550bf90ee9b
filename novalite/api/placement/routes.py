"""The placement API's route table: (path, method, handler, authenticated)."""

from __future__ import annotations

from novalite.api.placement import (
    aggregate,
    allocation,
    allocation_candidates,
    errors,
    inventory,
    microversions,
    reshaper,
    resource_class,
    resource_provider,
    root,
    trait,
    usage,
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
    ("/resource_providers", "GET", resource_provider.index, True),
    ("/resource_providers", "POST", resource_provider.create, True),
    (RP, "GET", resource_provider.show, True),
    (RP, "PUT", resource_provider.update, True),
    (RP, "DELETE", resource_provider.delete, True),
    (f"{RP}/inventories", "GET", inventory.index, True),
    (f"{RP}/inventories", "POST", inventory.create, True),
    (f"{RP}/inventories", "PUT", inventory.replace_all, True),
    (f"{RP}/inventories", "DELETE", inventory.delete_all, True),
    (f"{RP}/inventories/{{resource_class}}", "GET", inventory.show, True),
    (f"{RP}/inventories/{{resource_class}}", "PUT", inventory.update, True),
    (f"{RP}/inventories/{{resource_class}}", "DELETE", inventory.delete, True),
    (f"{RP}/usages", "GET", usage.provider_index, True),
    (f"{RP}/allocations", "GET", allocation.provider_index, True),
    (f"{RP}/aggregates", "GET", aggregate.index, True),
    (f"{RP}/aggregates", "PUT", aggregate.update, True),
    (f"{RP}/traits", "GET", trait.provider_index, True),
    (f"{RP}/traits", "PUT", trait.provider_update, True),
    (f"{RP}/traits", "DELETE", trait.provider_delete, True),
    ("/resource_classes", "GET", resource_class.index, True),
    ("/resource_classes", "POST", resource_class.create, True),
    ("/resource_classes/{name}", "GET", resource_class.show, True),
    ("/resource_classes/{name}", "PUT", resource_class.update, True),
    ("/resource_classes/{name}", "DELETE", resource_class.delete, True),
    ("/traits", "GET", trait.index, True),
    ("/traits/{name}", "GET", trait.show, True),
    ("/traits/{name}", "PUT", trait.update, True),
    ("/traits/{name}", "DELETE", trait.delete, True),
    ("/allocations", "POST", allocation.create_many, True),
    ("/allocations/{consumer_uuid}", "GET", allocation.show, True),
    ("/allocations/{consumer_uuid}", "PUT", allocation.update, True),
    ("/allocations/{consumer_uuid}", "DELETE", allocation.delete, True),
    ("/usages", "GET", usage.index, True),
    ("/reshaper", "POST", reshaper.reshape, True),
    ("/allocation_candidates", "GET", allocation_candidates.list_allocation_candidates, True),
]
