"""A server's networking through the compute API (Nova's proxies to the network
service): `/servers/{id}/ips[/{network}]` from the cached network info, `os-interface`
(list, show, attach, detach), the multinic and addSecurityGroup/removeSecurityGroup
actions, and `/servers/{id}/os-security-groups` (the floating IP actions:
floating_ips.py). What changes a server's ports refreshes its network info cache;
an interface attach or detach is its compute's work (novalite.compute.interfaces_api)."""

from __future__ import annotations

from typing import Any

from novalite.api import policy
from novalite.api.compute.schemas import server_networks as schema
from novalite.api.compute.schemas import validate
from novalite.api.compute.servers import get_instance
from novalite.api.compute.views.servers import addresses
from novalite.api.faults import HTTPFault
from novalite.api.request import ApiRequest, ApiResponse
from novalite.compute import guards, network_errors, neutron
from novalite.compute.api import API
from novalite.compute.interfaces_api import InterfaceAttachAPI
from novalite.objects import network_info
from novalite.objects.instance import Instance


def _server(req: ApiRequest, rule: str) -> Instance:
    instance = get_instance(req)
    policy.authorize(req.ctx, f"os_compute_api:{rule}", instance.project_id)
    return instance


def ips(req: ApiRequest) -> ApiResponse:
    instance = _server(req, "ips:index")
    return ApiResponse(200, {"addresses": addresses(
        network_info.to_json(instance.network_info), extended=False)})


def ips_show(req: ApiRequest) -> ApiResponse:
    instance = _server(req, "ips:show")
    network = req.params["network"]
    found = addresses(network_info.to_json(instance.network_info), extended=False)
    if network not in found:
        raise HTTPFault(404, "Instance is not a member of specified network")
    return ApiResponse(200, {network: found[network]})


def _attachment(port: dict[str, Any], req: ApiRequest, tags: dict[str, str]
                ) -> dict[str, Any]:
    """A port as os-interface shows it; from 2.70 with its device tag (`tags` by port
    id: the instance's network info keeps them, the network service does not)."""
    found = {"net_id": port["network_id"], "port_id": port["id"],
             "mac_addr": port["mac_address"], "port_state": port["status"],
             "fixed_ips": [{"subnet_id": ip["subnet_id"], "ip_address": ip["ip_address"]}
                           for ip in port["fixed_ips"]]}
    if req.at_least("2.70"):
        found["tag"] = tags.get(port["id"])
    return found


def interfaces(req: ApiRequest) -> ApiResponse:
    instance = _server(req, "os-attach-interfaces:list")
    ports = neutron.ServerNetworking(req.ctx, instance.uuid).ports()
    tags = instance.port_tags()
    return ApiResponse(200, {"interfaceAttachments": [_attachment(p, req, tags)
                                                      for p in ports]})


def interface_show(req: ApiRequest) -> ApiResponse:
    instance = _server(req, "os-attach-interfaces:show")
    for port in neutron.ServerNetworking(req.ctx, instance.uuid).ports():
        if port["id"] == req.params["port_id"]:
            return ApiResponse(200, {"interfaceAttachment": _attachment(
                port, req, instance.port_tags())})
    raise HTTPFault(404, f"Network interface {req.params['port_id']} could not be found for "
                         f"instance {instance.uuid}.")


def interface_attach(req: ApiRequest) -> ApiResponse:
    validate(schema.attach_for(req.version), req.body)
    instance = _server(req, "os-attach-interfaces:create")
    body = req.body.get("interfaceAttachment") or {}
    fixed = [ip.get("ip_address") for ip in body.get("fixed_ips", [])]
    if body.get("port_id") and body.get("net_id"):
        raise HTTPFault(400, "Must not input both network_id and port_id")
    if fixed and not body.get("net_id"):
        raise HTTPFault(400, "Must input network_id when request IP address")
    if not body.get("port_id") and not body.get("net_id"):
        request = neutron.resolve(req.ctx, "auto", neutron.Client(req.ctx))[0]
    else:
        request = neutron.NetworkRequest(network_id=body.get("net_id"),
                                         port_id=body.get("port_id"),
                                         address=fixed[0] if fixed else None)
    request.tag = body.get("tag")
    try:
        port = InterfaceAttachAPI().attach(req.ctx, instance, request)
    except (network_errors.PortNotFound, network_errors.NetworkNotFound) as exc:
        raise HTTPFault(404, exc.format_message()) from None  # os-interface's, not 400
    tags = {port["id"]: request.tag} if request.tag else {}
    return ApiResponse(200, {"interfaceAttachment": _attachment(port, req, tags)})


def interface_detach(req: ApiRequest) -> ApiResponse:
    instance = _server(req, "os-attach-interfaces:delete")
    InterfaceAttachAPI().detach(req.ctx, instance, req.params["port_id"])
    return ApiResponse(202)


def _multinic(req: ApiRequest, body_schema: dict, rule: str) -> Instance:
    """Nova's multinic actions, removed with 2.44 (404 from there)."""
    if req.at_least("2.44"):
        raise HTTPFault(404, "The resource could not be found.")
    validate(body_schema, req.body)
    instance = _server(req, rule)
    guards.check_lock(req.ctx, instance)
    return instance


def add_fixed_ip(req: ApiRequest) -> ApiResponse:
    instance = _multinic(req, schema.add_fixed_ip, "os-multinic:add")
    neutron.ServerNetworking(req.ctx, instance.uuid).add_fixed_ip(
        str(req.body["addFixedIp"]["networkId"]))
    API().refresh_network_info(req.ctx, instance)
    return ApiResponse(202)


def remove_fixed_ip(req: ApiRequest) -> ApiResponse:
    instance = _multinic(req, schema.remove_fixed_ip, "os-multinic:remove")
    neutron.ServerNetworking(req.ctx, instance.uuid).remove_fixed_ip(
        req.body["removeFixedIp"]["address"])
    API().refresh_network_info(req.ctx, instance)
    return ApiResponse(202)


def add_security_group(req: ApiRequest) -> ApiResponse:
    validate(schema.security_group_action("addSecurityGroup"), req.body)
    instance = _server(req, "os-security-groups:add")
    neutron.ServerNetworking(req.ctx, instance.uuid).add_security_group(
        req.body["addSecurityGroup"]["name"])
    API().refresh_network_info(req.ctx, instance)
    return ApiResponse(202)


def remove_security_group(req: ApiRequest) -> ApiResponse:
    validate(schema.security_group_action("removeSecurityGroup"), req.body)
    instance = _server(req, "os-security-groups:remove")
    neutron.ServerNetworking(req.ctx, instance.uuid).remove_security_group(
        req.body["removeSecurityGroup"]["name"])
    API().refresh_network_info(req.ctx, instance)
    return ApiResponse(202)


def nova_rule(rule: dict[str, Any], groups: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """A Neutron ingress rule as Nova's security group proxies show it: a protocol with
    no port range shows its whole range, no remote prefix shows 0.0.0.0/0, and a source
    group (`groups` by id) shows its name and project."""
    protocol, low, high = rule.get("protocol"), rule.get("port_range_min"), rule.get(
        "port_range_max")
    if protocol and low is None and high is None:
        low, high = (1, 65535) if protocol.lower() in ("tcp", "udp") else (-1, -1)
    remote = rule.get("remote_group_id")
    source = groups.get(remote or "", {})
    return {"id": rule["id"], "parent_group_id": rule["security_group_id"],
            "ip_protocol": protocol, "from_port": low, "to_port": high,
            "ip_range": {} if remote else {"cidr": rule.get("remote_ip_prefix") or "0.0.0.0/0"},
            "group": {"name": source.get("name", ""),
                      "tenant_id": source.get("project_id", rule["project_id"])}
            if remote else {}}


def nova_group(group: dict[str, Any], groups: dict[str, dict[str, Any]]) -> dict[str, Any]:
    return {"id": group["id"], "name": group["name"],
            "description": group.get("description", ""), "tenant_id": group["project_id"],
            "rules": [nova_rule(r, groups) for r in group.get("security_group_rules", [])
                      if r["direction"] == "ingress"]}


def server_security_groups(req: ApiRequest) -> ApiResponse:
    instance = _server(req, "os-security-groups:list")
    groups = neutron.ServerNetworking(req.ctx, instance.uuid).security_groups()
    by_id = {g["id"]: g for g in groups}
    return ApiResponse(200, {"security_groups": [nova_group(g, by_id) for g in groups]})
