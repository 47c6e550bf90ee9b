"""Nova's compute routes that novalite does not serve, answered as honestly as Nova would.

A route Nova serves and novalite does not answers 501 notImplemented naming the API (a
client then knows the cloud lacks it, rather than guessing from a 404 that the resource is
missing); a route Nova itself has removed answers Nova's 410 (`@wsgi.removed`); a proxy API
above its last microversion answers Nova's 404. The table is Nova's
(nova/api/openstack/compute/routes.py); a (path, method) that the route table serves is
never answered from here, so serving an API is only a matter of adding its routes.
"""

from __future__ import annotations

import dataclasses
import logging
import re

from novalite.api.faults import HTTPFault
from novalite.api.request import ApiRequest, ApiResponse, Handler

LOG = logging.getLogger("novalite.api")

GONE = "This resource is no longer available.  No forwarding address is given."

_ALL = ("GET", "POST", "PUT", "DELETE")


@dataclasses.dataclass(frozen=True)
class NovaRoute:
    path: str  # under /compute, e.g. /v2.1/servers/{server_id}/os-interface
    methods: tuple[str, ...]
    api: str  # the API's name, as Nova's api-ref calls it
    status: int = 501  # 501: Nova has it, novalite not (yet); 410: Nova removed it
    max_version: tuple[int, int] | None = None  # Nova answers 404 above this version


def _r(path: str, methods: tuple[str, ...], api: str, status: int = 501,
       max_version: tuple[int, int] | None = None) -> NovaRoute:
    return NovaRoute("/v2.1" + path, methods, api, status, max_version)


_PROXY = (2, 35)  # Nova's MAX_PROXY_API_SUPPORT_VERSION
_S = "/servers/{server_id}"

NOVA_ROUTES = [
    _r("/extensions", ("GET",), "extensions"),
    _r("/extensions/{id}", ("GET",), "extensions"),
    _r("/servers", ("GET", "POST"), "servers"),
    _r("/servers/detail", ("GET",), "servers"),
    _r(_S, ("GET", "PUT", "DELETE"), "servers"),
    _r(_S + "/action", ("POST",), "server actions"),
    _r(_S + "/metadata", ("GET", "POST", "PUT"), "server metadata"),
    _r(_S + "/metadata/{key}", ("GET", "PUT", "DELETE"), "server metadata"),
    _r(_S + "/ips", ("GET",), "server IP addresses"),
    _r(_S + "/ips/{network}", ("GET",), "server IP addresses"),
    _r(_S + "/os-interface", ("GET", "POST"), "port interfaces (os-interface)"),
    _r(_S + "/os-interface/{port_id}", ("GET", "DELETE"), "port interfaces (os-interface)"),
    _r(_S + "/os-volume_attachments", ("GET", "POST"),
       "volume attachments (os-volume_attachments)"),
    _r(_S + "/os-volume_attachments/{volume_id}", ("GET", "PUT", "DELETE"),
       "volume attachments (os-volume_attachments)"),
    _r(_S + "/os-instance-actions", ("GET",), "instance actions (os-instance-actions)"),
    _r(_S + "/os-instance-actions/{request_id}", ("GET",),
       "instance actions (os-instance-actions)"),
    _r(_S + "/migrations", ("GET",), "server migrations"),
    _r(_S + "/migrations/{migration_id}", ("GET", "DELETE"), "server migrations"),
    _r(_S + "/migrations/{migration_id}/action", ("POST",), "server migrations"),
    _r(_S + "/remote-consoles", ("POST",), "remote consoles"),
    _r(_S + "/os-server-password", ("GET", "DELETE"), "server password (os-server-password)"),
    _r(_S + "/os-security-groups", ("GET",), "server security groups", max_version=_PROXY),
    _r(_S + "/tags", ("GET", "PUT", "DELETE"), "server tags"),
    _r(_S + "/tags/{tag}", ("GET", "PUT", "DELETE"), "server tags"),
    _r(_S + "/os-virtual-interfaces", _ALL, "os-virtual-interfaces", 410),
    _r(_S + "/consoles", _ALL, "consoles", 410),
    _r(_S + "/consoles/{console_id}", _ALL, "consoles", 410),
    _r("/flavors", ("GET", "POST"), "flavors"),
    _r("/flavors/detail", ("GET",), "flavors"),
    _r("/flavors/{flavor_id}", ("GET", "PUT", "DELETE"), "flavors"),
    _r("/flavors/{flavor_id}/action", ("POST",), "flavor access"),
    _r("/flavors/{flavor_id}/os-flavor-access", ("GET",), "flavor access"),
    _r("/flavors/{flavor_id}/os-extra_specs", ("GET", "POST"), "flavor extra specs"),
    _r("/flavors/{flavor_id}/os-extra_specs/{key}", ("GET", "PUT", "DELETE"),
       "flavor extra specs"),
    _r("/os-keypairs", ("GET", "POST"), "keypairs (os-keypairs)"),
    _r("/os-keypairs/{name}", ("GET", "DELETE"), "keypairs (os-keypairs)"),
    _r("/limits", ("GET",), "limits"),
    _r("/os-quota-sets/{project_id}", ("GET", "PUT", "DELETE"), "quota sets (os-quota-sets)"),
    _r("/os-quota-sets/{project_id}/detail", ("GET",), "quota sets (os-quota-sets)"),
    _r("/os-quota-sets/{project_id}/defaults", ("GET",), "quota sets (os-quota-sets)"),
    _r("/os-quota-class-sets/{class_id}", ("GET", "PUT"),
       "quota class sets (os-quota-class-sets)"),
    _r("/os-hypervisors", ("GET",), "hypervisors (os-hypervisors)"),
    _r("/os-hypervisors/detail", ("GET",), "hypervisors (os-hypervisors)"),
    _r("/os-hypervisors/statistics", ("GET",), "hypervisors (os-hypervisors)",
       max_version=(2, 87)),
    _r("/os-hypervisors/{id}", ("GET",), "hypervisors (os-hypervisors)"),
    _r("/os-hypervisors/{id}/uptime", ("GET",), "hypervisors (os-hypervisors)",
       max_version=(2, 87)),
    _r("/os-hypervisors/{pattern}/search", ("GET",), "hypervisors (os-hypervisors)",
       max_version=(2, 52)),
    _r("/os-hypervisors/{pattern}/servers", ("GET",), "hypervisors (os-hypervisors)",
       max_version=(2, 52)),
    _r("/os-services", ("GET",), "compute services (os-services)"),
    _r("/os-services/{id}", ("PUT", "DELETE"), "compute services (os-services)"),
    _r("/os-aggregates", ("GET", "POST"), "host aggregates (os-aggregates)"),
    _r("/os-aggregates/{id}", ("GET", "PUT", "DELETE"), "host aggregates (os-aggregates)"),
    _r("/os-aggregates/{id}/action", ("POST",), "host aggregates (os-aggregates)"),
    _r("/os-aggregates/{id}/images", ("POST",), "aggregate image cache (os-aggregates)"),
    _r("/os-availability-zone", ("GET",), "availability zones (os-availability-zone)"),
    _r("/os-availability-zone/detail", ("GET",), "availability zones (os-availability-zone)"),
    _r("/os-server-groups", ("GET", "POST"), "server groups (os-server-groups)"),
    _r("/os-server-groups/{id}", ("GET", "DELETE"), "server groups (os-server-groups)"),
    _r("/os-migrations", ("GET",), "migrations (os-migrations)"),
    _r("/os-server-external-events", ("POST",), "server external events"),
    _r("/os-simple-tenant-usage", ("GET",), "usage reports (os-simple-tenant-usage)"),
    _r("/os-simple-tenant-usage/{project_id}", ("GET",),
       "usage reports (os-simple-tenant-usage)"),
    _r("/os-hosts", ("GET",), "hosts (os-hosts)", max_version=(2, 42)),
    _r("/os-hosts/{host}", ("PUT",), "hosts (os-hosts)", max_version=(2, 42)),
    _r("/os-hosts/{host}/{action}", ("GET",), "hosts (os-hosts)", max_version=(2, 42)),
    _r("/os-console-auth-tokens/{token}", ("GET",), "server consoles (os-console-auth-tokens)"),
    _r("/os-volumes", ("GET", "POST"), "volumes (proxy)", max_version=_PROXY),
    _r("/os-volumes/detail", ("GET",), "volumes (proxy)", max_version=_PROXY),
    _r("/os-volumes/{id}", ("GET", "DELETE"), "volumes (proxy)", max_version=_PROXY),
    _r("/os-snapshots", ("GET", "POST"), "volume snapshots (proxy)", max_version=_PROXY),
    _r("/os-snapshots/detail", ("GET",), "volume snapshots (proxy)", max_version=_PROXY),
    _r("/os-snapshots/{id}", ("GET", "DELETE"), "volume snapshots (proxy)",
       max_version=_PROXY),
    _r("/os-volumes_boot", ("GET", "POST"), "servers (os-volumes_boot alias)",
       max_version=(2, 102)),
    _r("/os-floating-ips", ("GET", "POST"), "floating IPs (proxy)", max_version=_PROXY),
    _r("/os-floating-ips/{id}", ("GET", "DELETE"), "floating IPs (proxy)",
       max_version=_PROXY),
    _r("/os-floating-ip-pools", ("GET",), "floating IP pools (proxy)", max_version=_PROXY),
    _r("/os-security-groups", ("GET", "POST"), "security groups (proxy)",
       max_version=_PROXY),
    _r("/os-security-groups/{id}", ("GET", "PUT", "DELETE"), "security groups (proxy)",
       max_version=_PROXY),
    _r("/os-security-group-rules", ("POST",), "security group rules (proxy)",
       max_version=_PROXY),
    _r("/os-security-group-rules/{id}", ("DELETE",), "security group rules (proxy)",
       max_version=_PROXY),
    _r("/os-baremetal-nodes", ("GET",), "baremetal nodes (proxy)", max_version=_PROXY),
    _r("/os-baremetal-nodes/{id}", ("GET",), "baremetal nodes (proxy)", max_version=_PROXY),
    _r("/os-networks", ("GET",), "networks (proxy)", max_version=_PROXY),
    _r("/os-networks/{id}", ("GET",), "networks (proxy)", max_version=_PROXY),
    _r("/os-tenant-networks", ("GET",), "tenant networks (proxy)", max_version=_PROXY),
    _r("/os-tenant-networks/{id}", ("GET",), "tenant networks (proxy)", max_version=_PROXY),
    _r("/os-networks", ("POST",), "os-networks (nova-network)", 410),
    _r("/os-networks/{id}", ("DELETE",), "os-networks (nova-network)", 410),
    _r("/os-tenant-networks", ("POST",), "os-tenant-networks (nova-network)", 410),
    _r("/os-tenant-networks/{id}", ("DELETE",), "os-tenant-networks (nova-network)", 410),
    *(_r(path, _ALL, name, 410) for path, name in (
        ("/os-agents", "os-agents"), ("/os-agents/{id}", "os-agents"),
        ("/os-cells", "os-cells"), ("/os-cells/{id}", "os-cells"),
        ("/os-certificates", "os-certificates"), ("/os-certificates/{id}", "os-certificates"),
        ("/os-cloudpipe", "os-cloudpipe"), ("/os-cloudpipe/{id}", "os-cloudpipe"),
        ("/os-fixed-ips/{id}", "os-fixed-ips"), ("/os-fixed-ips/{id}/action", "os-fixed-ips"),
        ("/os-floating-ip-dns", "os-floating-ip-dns"),
        ("/os-floating-ip-dns/{id}", "os-floating-ip-dns"),
        ("/os-floating-ips-bulk", "os-floating-ips-bulk"),
        ("/os-floating-ips-bulk/{id}", "os-floating-ips-bulk"),
        ("/os-fping", "os-fping"), ("/os-fping/{id}", "os-fping"),
        ("/os-security-group-default-rules", "os-security-group-default-rules"),
        ("/os-security-group-default-rules/{id}", "os-security-group-default-rules"),
        ("/os-networks/add", "os-networks (nova-network)"),
        ("/os-networks/{id}/action", "os-networks (nova-network)"),
    )),
]

def _answer(route: NovaRoute) -> Handler:
    def handler(req: ApiRequest) -> ApiResponse:
        if route.max_version and req.version > route.max_version:
            raise HTTPFault(404, "The resource could not be found.")
        if route.status == 410:
            raise HTTPFault(410, GONE)
        LOG.warning("Not implemented by novalite: the %s API (%s)", route.api, route.path)
        raise HTTPFault(501, f"The {route.api} API is not implemented by novalite.")

    return handler


def shape(path: str) -> str:
    """A path template without its parameters' names: /servers/{} for /servers/{id}."""
    return re.sub(r"\{[^}]*\}", "{}", path)


def routes(served: list[tuple]) -> list[tuple]:
    """Route-table entries (path, method, handler, authenticated) for every Nova route
    that `served` does not serve: authenticated, as Nova's are."""
    have = {(shape(path), method) for path, method, *_ in served}
    return [(route.path, method, _answer(route), True)
            for route in NOVA_ROUTES for method in route.methods
            if (shape(route.path), method) not in have]
