"""/v2.0/extensions: the Neutron API extensions this service implements (clients look
some up before they use them), and /v2.0/availability_zones."""

from __future__ import annotations

from novalite.api.network import listing
from novalite.api.network.resource import authorize
from novalite.api.request import ApiRequest, ApiResponse
from novalite.network import common, errors

UPDATED = "2024-01-01T00:00:00-00:00"
# alias -> name, one per behaviour this service has
EXTENSIONS = {
    "allowed-address-pairs": "Allowed Address Pairs",
    "availability_zone": "Availability Zone",
    "binding": "Port Binding",
    "external-net": "Neutron external network",
    "ext-gw-mode": "Neutron L3 Configurable external gateway mode",
    "fip-port-details": "Floating IP Port Details Extension",
    "filter-validation": "Filter parameters validation",
    "net-mtu": "Network MTU",
    "net-mtu-writable": "Network MTU (writable)",
    "network_availability_zone": "Network Availability Zone",
    "pagination": "Pagination support",
    "port-security": "Port Security",
    "project-id": "project_id field enabled",
    "provider": "Provider Network",
    "quotas": "Quota management support",
    "quota_details": "Quota details management support",
    "revision-if-match": "If-Match constraints based on revision_number",
    "router": "Neutron L3 Router",
    "router_availability_zone": "Router Availability Zone",
    "security-group": "security-group",
    "sorting": "Sorting support",
    "standard-attr-description": "standard-attr-description",
    "standard-attr-revisions": "Resource revision numbers",
    "standard-attr-tag": "Tag support for resources with standard attribute: subnet, "
                         "trunk, network_segment_range, router, network, policy, "
                         "subnetpool, port, security_group, floatingip",
    "standard-attr-timestamp": "Resource timestamps",
    "stateful-security-group": "Stateful security group",
    "subnet-service-types": "Subnet service types",
}


def _extension(alias: str) -> dict:
    return {"alias": alias, "name": EXTENSIONS[alias], "description": EXTENSIONS[alias],
            "updated": UPDATED, "links": []}


def index(req: ApiRequest) -> ApiResponse:
    authorize(req, "get_extension", {})
    return ApiResponse(200, {"extensions": [_extension(a) for a in sorted(EXTENSIONS)]})


def show(req: ApiRequest) -> ApiResponse:
    authorize(req, "get_extension", {})
    alias = req.params["alias"]
    if alias not in EXTENSIONS:
        raise errors.NotFound(f"Extension with alias {alias} does not exist")
    return ApiResponse(200, {"extension": _extension(alias)})


def availability_zones(req: ApiRequest) -> ApiResponse:
    authorize(req, "get_availability_zone", {})
    found = [{"name": common.AVAILABILITY_ZONE, "resource": kind, "state": "available"}
             for kind in ("network", "router")]
    return ApiResponse(200, listing.apply(req, found, "availability_zones"))
