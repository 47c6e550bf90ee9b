"""The compute API's route table: (path, method, handler, authenticated)."""

from __future__ import annotations

from novalite.api.compute import flavors, servers, versions

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
    ("/v2.1/flavors", "GET", flavors.index, True),
    ("/v2.1/flavors/detail", "GET", flavors.detail, True),
    ("/v2.1/flavors/{flavor_id}", "GET", flavors.show, True),
]
