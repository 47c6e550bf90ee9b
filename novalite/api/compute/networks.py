"""Nova's deprecated network proxies, `/os-networks` and `/os-tenant-networks`: the
networks the caller sees in the network service, in the shapes Nova gives them now that
nova-network is gone (an id and a label; the other nova-network fields are null). Both
stop at microversion 2.35, as Nova's proxy APIs do."""

from __future__ import annotations

from typing import Any

from novalite.api import policy
from novalite.api.faults import HTTPFault
from novalite.api.request import ApiRequest, ApiResponse
from novalite.clients.neutron import Client, NeutronError

MAX_PROXY_VERSION = "2.36"  # first microversion without the proxy APIs

# What Nova shows of a network on /os-networks (admins see the nova-network extras, null).
_FIELDS = ("id", "cidr", "netmask", "gateway", "broadcast", "dns1", "dns2", "cidr_v6",
           "gateway_v6", "label", "netmask_v6")
_ADMIN_FIELDS = ("created_at", "updated_at", "deleted_at", "deleted", "injected", "bridge",
                 "vlan", "vpn_public_address", "vpn_public_port", "vpn_private_address",
                 "dhcp_start", "project_id", "host", "bridge_interface", "multi_host",
                 "priority", "rxtx_base", "mtu", "dhcp_server", "enable_dhcp",
                 "share_address")


def check_proxy_version(req: ApiRequest) -> None:
    """Nova's proxy APIs are gone from 2.36 on: its 404."""
    if req.at_least(MAX_PROXY_VERSION):
        raise HTTPFault(404, "The resource could not be found.")


def _authorized(req: ApiRequest, rule: str) -> Client:
    check_proxy_version(req)
    policy.authorize(req.ctx, f"os_compute_api:{rule}", req.ctx.project_id)
    return Client(req.ctx)


def _visible(client: Client) -> list[dict[str, Any]]:
    try:
        return client.list("networks")
    except NeutronError as exc:
        raise HTTPFault(502, f"The network service refused the network list: "
                             f"{exc.message}") from exc


def _find(client: Client, name_or_id: str) -> dict[str, Any]:
    """By id as Nova does, else by name: `openstack server create --network NAME`
    without a network endpoint asks `/os-networks/NAME`."""
    try:
        return client.show("networks", "network", name_or_id)
    except NeutronError as exc:
        if exc.status != 404:
            raise HTTPFault(502, f"The network service refused the network: "
                                 f"{exc.message}") from exc
    named = [n for n in _visible(client) if n["name"] == name_or_id]
    if len(named) != 1:
        raise HTTPFault(404, "Network not found")
    return named[0]


def _network(req: ApiRequest, network: dict[str, Any]) -> dict[str, Any]:
    fields = _FIELDS + (_ADMIN_FIELDS if req.ctx.is_admin else ())
    values = {"id": network["id"], "label": network["name"]}
    return {field: values.get(field) for field in fields}


def _tenant_network(network: dict[str, Any]) -> dict[str, Any]:
    # Nova prints the cidr it does not know from the network service as str(None).
    return {"id": network["id"], "cidr": "None", "label": network["name"]}


def index(req: ApiRequest) -> ApiResponse:
    client = _authorized(req, "os-networks:list")
    return ApiResponse(200, {"networks": [_network(req, n) for n in _visible(client)]})


def show(req: ApiRequest) -> ApiResponse:
    client = _authorized(req, "os-networks:show")
    return ApiResponse(200, {"network": _network(req, _find(client, req.params["id"]))})


def tenant_index(req: ApiRequest) -> ApiResponse:
    client = _authorized(req, "os-tenant-networks:list")
    return ApiResponse(200, {"networks": [_tenant_network(n) for n in _visible(client)]})


def tenant_show(req: ApiRequest) -> ApiResponse:
    client = _authorized(req, "os-tenant-networks:show")
    return ApiResponse(200, {"network": _tenant_network(_find(client, req.params["id"]))})
