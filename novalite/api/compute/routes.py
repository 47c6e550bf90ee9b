"""The compute API's route table: (path, method, handler, authenticated)."""

from __future__ import annotations

from novalite.api import faults
from novalite.api.compute import (
    aggregates,
    availability_zones,
    flavor_access,
    flavors,
    flavors_extraspecs,
    microversions,
    server_actions,
    server_groups,
    servers,
    versions,
)
from novalite.api.profile import ApiProfile

PROFILE = ApiProfile(
    mount="/compute",
    fault=lambda error, request_id: faults.fault_response(error.code, error.message),
    negotiate=microversions.negotiate,
    version_headers=microversions.response_headers,
    fmt_version=microversions.fmt,
)

ROUTES = [
    ("/", "GET", versions.root, False),
    ("/v2", "GET", versions.show_v2, False),
    ("/v2/", "GET", versions.show_v2, False),
    ("/v2.1", "GET", versions.show_v21, False),
    ("/v2.1/", "GET", versions.show_v21, False),
    ("/v2.1/servers", "GET", servers.index, True),
    ("/v2.1/servers", "POST", servers.create, True),
    ("/v2.1/servers/detail", "GET", servers.detail, True),
    ("/v2.1/servers/{server_id}", "GET", servers.show, True),
    ("/v2.1/servers/{server_id}", "DELETE", servers.delete, True),
    ("/v2.1/servers/{server_id}/action", "POST", server_actions.action, True),
    ("/v2.1/flavors", "GET", flavors.index, True),
    ("/v2.1/flavors/detail", "GET", flavors.detail, True),
    ("/v2.1/flavors", "POST", flavors.create, True),
    ("/v2.1/flavors/{flavor_id}", "GET", flavors.show, True),
    ("/v2.1/flavors/{flavor_id}", "PUT", flavors.update, True),
    ("/v2.1/flavors/{flavor_id}", "DELETE", flavors.delete, True),
    ("/v2.1/flavors/{flavor_id}/action", "POST", flavor_access.action, True),
    ("/v2.1/flavors/{flavor_id}/os-flavor-access", "GET", flavor_access.index, True),
    ("/v2.1/flavors/{flavor_id}/os-extra_specs", "GET", flavors_extraspecs.index, True),
    ("/v2.1/flavors/{flavor_id}/os-extra_specs", "POST", flavors_extraspecs.create, True),
    ("/v2.1/flavors/{flavor_id}/os-extra_specs/{key}", "GET", flavors_extraspecs.show, True),
    ("/v2.1/flavors/{flavor_id}/os-extra_specs/{key}", "PUT", flavors_extraspecs.update,
     True),
    ("/v2.1/flavors/{flavor_id}/os-extra_specs/{key}", "DELETE", flavors_extraspecs.delete,
     True),
    ("/v2.1/os-aggregates", "GET", aggregates.index, True),
    ("/v2.1/os-aggregates", "POST", aggregates.create, True),
    ("/v2.1/os-aggregates/{id}", "GET", aggregates.show, True),
    ("/v2.1/os-aggregates/{id}", "PUT", aggregates.update, True),
    ("/v2.1/os-aggregates/{id}", "DELETE", aggregates.delete, True),
    ("/v2.1/os-aggregates/{id}/action", "POST", aggregates.action, True),
    ("/v2.1/os-availability-zone", "GET", availability_zones.index, True),
    ("/v2.1/os-availability-zone/detail", "GET", availability_zones.detail, True),
    ("/v2.1/os-server-groups", "GET", server_groups.index, True),
    ("/v2.1/os-server-groups", "POST", server_groups.create, True),
    ("/v2.1/os-server-groups/{id}", "GET", server_groups.show, True),
    ("/v2.1/os-server-groups/{id}", "DELETE", server_groups.delete, True),
]
