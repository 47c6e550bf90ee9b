"""Nova's deprecated floating IP proxies: `/os-floating-ips` (list, show, allocate,
release) and `/os-floating-ip-pools` up to microversion 2.35, and the server actions
`addFloatingIp`/`removeFloatingIp` up to 2.43. They act on the caller's floating IPs in
the network service (novalite.compute.floating_ips) with Nova's checks, in Nova's order,
with its codes and texts; what changes a server's floating IPs refreshes its cached
network info."""

from __future__ import annotations

import ipaddress
import logging

from novalite import exception
from novalite.api import policy
from novalite.api.compute.networks import check_proxy_version
from novalite.api.compute.schemas import floating_ips as schema
from novalite.api.compute.schemas import validate
from novalite.api.compute.servers import find_instance, get_instance
from novalite.api.faults import HTTPFault
from novalite.api.request import ApiRequest, ApiResponse
from novalite.compute import network_errors as errors
from novalite.compute.api import API
from novalite.compute.floating_ips import FloatingIP, FloatingIPs
from novalite.db.api import instances
from novalite.objects.instance import Instance

LOG = logging.getLogger(__name__)
RULE = "os_compute_api:os-floating-ips:%s"
ACTIONS_GONE = "2.44"  # first microversion without addFloatingIp/removeFloatingIp


def _view(fip: FloatingIP) -> dict[str, str | None]:
    return {"id": fip.id, "ip": fip.address, "pool": fip.pool, "fixed_ip": fip.fixed_address,
            "instance_id": fip.instance_id}


def _authorized(req: ApiRequest, rule: str) -> FloatingIPs:
    check_proxy_version(req)
    policy.authorize(req.ctx, RULE % rule, req.ctx.project_id)
    return FloatingIPs(req.ctx)


def _server_of(req: ApiRequest, fip: FloatingIP) -> Instance | None:
    """The server `fip` is associated with, as Nova finds it: a server the caller cannot
    see is Nova's 404."""
    return find_instance(req, fip.instance_id) if fip.instance_id else None


def index(req: ApiRequest) -> ApiResponse:
    fips = _authorized(req, "list").of_project()
    return ApiResponse(200, {"floating_ips": [_view(f) for f in fips]})


def show(req: ApiRequest) -> ApiResponse:
    fip = _authorized(req, "show").get(req.params["id"])
    return ApiResponse(200, {"floating_ip": _view(fip)})


def create(req: ApiRequest) -> ApiResponse:
    fips = _authorized(req, "create")
    if req.body is not None:  # Nova allocates from the default pool without a body
        validate(schema.create, req.body)
    pool = (req.body or {}).get("pool")
    return ApiResponse(200, {"floating_ip": _view(fips.allocate(pool))})


def delete(req: ApiRequest) -> ApiResponse:
    fips = _authorized(req, "delete")
    fip = fips.get(req.params["id"])
    server = _server_of(req, fip)
    fips.release(fip)
    if server:
        API().refresh_network_info(req.ctx, server)
    return ApiResponse(202)


def pools(req: ApiRequest) -> ApiResponse:
    check_proxy_version(req)
    policy.authorize_target(req.ctx, "os_compute_api:os-floating-ip-pools", {})
    names = FloatingIPs(req.ctx).pools()
    return ApiResponse(200, {"floating_ip_pools": [{"name": n} for n in names]})


def _check_action_version(req: ApiRequest) -> None:
    if req.at_least(ACTIONS_GONE):
        raise HTTPFault(404, "The resource could not be found.")


def _fixed_address(instance: Instance, address: str, requested: str | None) -> str:
    """The server's fixed address to associate with, checked as Nova checks it against
    the server's cached network info: the one asked for, or its first IPv4 address."""
    if not instance.network_info:
        raise HTTPFault(400, "Instance network is not ready yet")
    fixed = [ip.address for vif in instance.network_info for ip in vif.fixed_ips()]
    if not fixed:
        raise HTTPFault(400, "No fixed IPs associated to instance")
    if requested is not None:
        if requested not in fixed:
            raise HTTPFault(400, "Specified fixed address not assigned to instance")
        return requested
    for candidate in fixed:
        if ipaddress.ip_address(candidate).version == 4:
            return candidate
    raise HTTPFault(400, f"Unable to associate floating IP {address} to any fixed IPs for "
                         f"instance {instance.uuid}. Instance has no fixed IPv4 addresses "
                         "to associate.")


def add_floating_ip(req: ApiRequest) -> ApiResponse:
    _check_action_version(req)
    validate(schema.add_floating_ip, req.body)
    instance = get_instance(req)
    policy.authorize(req.ctx, RULE % "add", instance.project_id)
    body = req.body["addFloatingIp"]
    fixed = _fixed_address(instance, body["address"], body.get("fixed_address"))
    try:
        before = FloatingIPs(req.ctx).associate(instance.uuid, body["address"], fixed)
    except errors.FloatingIpNotFoundForAddress:
        raise HTTPFault(404, "floating IP not found") from None
    API().refresh_network_info(req.ctx, instance)
    if before.instance_id and before.instance_id != instance.uuid:
        _refresh_previous(req, before.instance_id)
    return ApiResponse(202)


def _refresh_previous(req: ApiRequest, uuid: str) -> None:
    """The address moved off another server: refresh its cache now too, as Nova does,
    rather than let both show it until the network service's event arrives. Best
    effort: that event refreshes it anyway."""
    try:
        API().refresh_network_info(req.ctx, instances.instance_get(uuid))
    except exception.NovaliteException as exc:
        LOG.warning("Could not refresh the network info of %s, which had floating IP "
                    "%s: %s", uuid, req.body["addFloatingIp"]["address"], exc)


def remove_floating_ip(req: ApiRequest) -> ApiResponse:
    """Nova finds the floating IP's server before the policy check and judges the policy
    against that server's project (an empty target when it has none: only an admin
    passes), and answers 409 unless it is the server of the path."""
    _check_action_version(req)
    validate(schema.remove_floating_ip, req.body)
    address = req.body["removeFloatingIp"]["address"]
    fips = FloatingIPs(req.ctx)
    fip = fips.by_address(address)
    server = _server_of(req, fip)
    policy.authorize_target(req.ctx, RULE % "remove",
                            {"project_id": server.project_id} if server else {})
    if server is None or fip.port_id is None or server.uuid != req.params["server_id"]:
        raise errors.FloatingIpNotAssociated(address=address, id=req.params["server_id"])
    fips.disassociate(fip)
    API().refresh_network_info(req.ctx, server)
    return ApiResponse(202)
