"""The network API's route table (Neutron v2.0): (path, method, handler, authenticated).
Neutron has no microversions; its errors are NeutronError bodies (faults.py)."""

from __future__ import annotations

from novalite.api.network import (
    extensions,
    faults,
    floating_ips,
    networks,
    ports,
    quotas,
    routers,
    security_groups,
    subnet_pools,
    subnets,
    versions,
)
from novalite.api.network.resource import routes
from novalite.api.profile import ApiProfile

PROFILE = ApiProfile(mount="/networking", fault=faults.fault)

_QUOTA = "/v2.0/quotas/{project_id}"

ROUTES = [
    ("/", "GET", versions.root, False),
    ("/v2.0", "GET", versions.index, True),
    ("/v2.0/", "GET", versions.index, True),
    *routes(networks.RESOURCE, "networks"),
    *routes(subnets.RESOURCE, "subnets"),
    *routes(ports.RESOURCE, "ports"),
    *routes(security_groups.GROUPS, "security-groups"),
    *routes(security_groups.RULES, "security-group-rules"),
    *routes(routers.RESOURCE, "routers"),
    *routes(floating_ips.RESOURCE, "floatingips"),
    ("/v2.0/routers/{id}/add_router_interface", "PUT", routers.add_interface, True),
    ("/v2.0/routers/{id}/remove_router_interface", "PUT", routers.remove_interface, True),
    ("/v2.0/hosts/{host}/devices_up", "POST", ports.devices_up, True),
    ("/v2.0/subnetpools", "GET", subnet_pools.index, True),
    ("/v2.0/subnetpools/{id}", "GET", subnet_pools.show, True),
    ("/v2.0/quotas", "GET", quotas.index, True),
    (_QUOTA, "GET", quotas.show, True),
    (_QUOTA, "PUT", quotas.update, True),
    (_QUOTA, "DELETE", quotas.delete, True),
    (f"{_QUOTA}/default", "GET", quotas.defaults, True),
    (f"{_QUOTA}/details", "GET", quotas.details, True),
    (f"{_QUOTA}/details.json", "GET", quotas.details, True),
    ("/v2.0/extensions", "GET", extensions.index, True),
    ("/v2.0/extensions/{alias}", "GET", extensions.show, True),
    ("/v2.0/availability_zones", "GET", extensions.availability_zones, True),
]
