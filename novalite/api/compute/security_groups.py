"""Nova's deprecated security group proxies, `/os-security-groups` and
`/os-security-group-rules`: the caller's groups in the network service, in Nova's shapes
(ingress rules only, `ip_protocol`/`from_port`/`to_port`, `ip_range` or `group`), with
Nova's checks on a rule (tcp, udp or icmp; port ranges; a CIDR or a source group) and
Nova's answers to the network service's refusals. Gone from microversion 2.36 on."""

from __future__ import annotations

import ipaddress
import uuid
from typing import Any

from novalite.api import policy
from novalite.api.compute.networks import check_proxy_version
from novalite.api.compute.schemas import security_groups as schema
from novalite.api.compute.schemas import validate
from novalite.api.compute.server_networks import nova_group, nova_rule
from novalite.api.faults import HTTPFault
from novalite.api.request import ApiRequest, ApiResponse
from novalite.clients.neutron import Client, NeutronError

GROUPS, GROUP = "security-groups", "security_group"
RULES, RULE = "security-group-rules", "security_group_rule"


def _authorized(req: ApiRequest, rule: str) -> Client:
    check_proxy_version(req)
    policy.authorize(req.ctx, f"os_compute_api:os-security-groups:{rule}", req.ctx.project_id)
    return Client(req.ctx)


def _valid_id(value: Any) -> str:
    try:
        uuid.UUID(str(value))
    except ValueError:
        raise HTTPFault(400, "Security group id should be uuid") from None
    return str(value)


def _refused(exc: NeutronError, conflict: int = 400) -> HTTPFault:
    """The network service's refusal as Nova answers it: not found 404, bad input 400,
    a conflict (in use, over quota) `conflict`."""
    if exc.status == 404:
        return HTTPFault(404, exc.message)
    if exc.status == 409:
        return HTTPFault(conflict, exc.message)
    if exc.status in (400, 403):
        return HTTPFault(exc.status, exc.message)
    return HTTPFault(502, f"The network service failed: {exc.message}")


def _get(client: Client, group_id: str) -> dict[str, Any]:
    try:
        return client.show(GROUPS, GROUP, _valid_id(group_id))
    except NeutronError as exc:
        raise _refused(exc) from exc


def _names(client: Client, groups: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The groups the rules of `groups` name as their source, by id."""
    known = {g["id"]: g for g in groups}
    for group in groups:
        for rule in group.get("security_group_rules", []):
            remote = rule.get("remote_group_id")
            if remote and remote not in known:
                try:
                    known[remote] = client.show(GROUPS, GROUP, remote)
                except NeutronError:
                    known[remote] = {"id": remote, "name": "", "project_id": rule["project_id"]}
    return known


def _shown(client: Client, group: dict[str, Any]) -> dict[str, Any]:
    return nova_group(group, _names(client, [group]))


def index(req: ApiRequest) -> ApiResponse:
    client = _authorized(req, "get")
    filters = {} if req.ctx.is_admin and "all_tenants" in req.query else {
        "project_id": req.ctx.project_id}
    try:
        groups = client.list(GROUPS, **filters)
    except NeutronError as exc:
        raise _refused(exc) from exc
    names = _names(client, groups)
    shown = sorted((nova_group(g, names) for g in groups),
                   key=lambda g: (g["tenant_id"], g["name"]))
    offset, limit = _page(req)
    return ApiResponse(200, {"security_groups": shown[offset:offset + limit]})


def _page(req: ApiRequest) -> tuple[int, int]:
    """Nova's `limit` and `offset` on this list (a plain slice of the sorted groups)."""
    values = []
    for name, default in (("offset", 0), ("limit", 1000)):
        try:
            value = int(req.query.get(name, default))
        except ValueError:
            raise HTTPFault(400, f"{name} param must be an integer") from None
        if value < 0:
            raise HTTPFault(400, f"{name} param must be positive")
        values.append(value)
    return values[0], values[1]


def show(req: ApiRequest) -> ApiResponse:
    client = _authorized(req, "show")
    return ApiResponse(200, {GROUP: _shown(client, _get(client, req.params["id"]))})


def create(req: ApiRequest) -> ApiResponse:
    client = _authorized(req, "create")
    validate(schema.group, req.body)
    try:
        made = client.create(GROUPS, GROUP, req.body[GROUP])
    except NeutronError as exc:
        raise _refused(exc, conflict=403) from exc
    return ApiResponse(200, {GROUP: _shown(client, made)})


def update(req: ApiRequest) -> ApiResponse:
    client = _authorized(req, "update")
    validate(schema.group, req.body)
    group = _get(client, req.params["id"])
    try:
        changed = client.update(GROUPS, GROUP, group["id"], req.body[GROUP])
    except NeutronError as exc:
        raise _refused(exc) from exc
    return ApiResponse(200, {GROUP: _shown(client, changed)})


def delete(req: ApiRequest) -> ApiResponse:
    client = _authorized(req, "delete")
    group = _get(client, req.params["id"])
    try:
        client.delete(GROUPS, group["id"])
    except NeutronError as exc:
        raise _refused(exc) from exc
    return ApiResponse(202)


def _ports(protocol: str, from_port: Any, to_port: Any) -> tuple[int, int]:
    """Nova's checks on a rule's port range (ICMP: type and code)."""
    icmp = protocol == "icmp"
    try:
        low, high = int(from_port), int(to_port)
    except (TypeError, ValueError):
        raise HTTPFault(400, "Invalid input received: " + (
            "Type and Code must be integers for ICMP protocol type" if icmp
            else "To and From ports must be integers")) from None
    if icmp and not (-1 <= low <= 255 and -1 <= high <= 255):
        why = "For ICMP, the type:code must be valid"
    elif not icmp and low > high:
        why = "Former value cannot be greater than the later"
    elif not icmp and (low < 1 or high > 65535):
        why = f"Valid {protocol.upper()} ports should be between 1-65535"
    else:
        return low, high
    raise HTTPFault(400, f"Invalid port range {low}:{high}. {why}")


def _cidr(value: Any) -> str:
    try:
        network = ipaddress.ip_network(value or "0.0.0.0/0", strict=False)
    except ValueError:
        raise HTTPFault(400, f"{value} is not a valid IP network.") from None
    if network.prefixlen == 0 and not network.network_address.is_unspecified:
        raise HTTPFault(400, f"Bad prefix for network in cidr {value}")
    return str(value or "0.0.0.0/0")


def _neutron_rule(body: dict[str, Any], parent: str, source: str | None) -> dict[str, Any]:
    """The Neutron ingress rule for a Nova rule request: Nova's defaults (a source group
    with no ports opens the protocol's whole range) and checks."""
    protocol = body.get("ip_protocol")
    from_port, to_port = body.get("from_port"), body.get("to_port")
    cidr = None if source else _cidr(body.get("cidr"))
    if source and protocol and from_port is None and to_port is None:
        from_port, to_port = (-1, -1) if str(protocol).lower() == "icmp" else (1, 65535)
    rule: dict[str, Any] = {"direction": "ingress", "security_group_id": parent,
                            "remote_group_id": source, "remote_ip_prefix": cidr,
                            "ethertype": "IPv6" if cidr and ":" in cidr else "IPv4"}
    if protocol is None or from_port is None or to_port is None:
        if not source:
            raise HTTPFault(400, "Not enough parameters to build a valid rule.")
        return rule
    protocol = str(protocol).lower()
    if protocol not in ("tcp", "udp", "icmp"):
        raise HTTPFault(400, f"Invalid IP protocol {body.get('ip_protocol')}.")
    low, high = _ports(protocol, from_port, to_port)
    rule["protocol"] = protocol
    rule.update({k: v for k, v in (("port_range_min", low), ("port_range_max", high))
                 if v != -1})
    return rule


def rule_create(req: ApiRequest) -> ApiResponse:
    client = _authorized(req, "rule:create")
    validate(schema.rule, req.body)
    body = req.body[RULE]
    parent = _get(client, body["parent_group_id"])
    source = _get(client, body["group_id"]) if body.get("group_id") is not None else None
    wanted = _neutron_rule(body, parent["id"], source["id"] if source else None)
    try:
        made = client.create(RULES, RULE, wanted)
    except NeutronError as exc:
        if exc.kind == "SecurityGroupRuleExists":
            raise HTTPFault(400, f"This rule already exists in group {parent['id']}") from exc
        raise _refused(exc, conflict=403) from exc
    names = {parent["id"]: parent, **({source["id"]: source} if source else {})}
    return ApiResponse(200, {RULE: nova_rule(made, names)})


def rule_delete(req: ApiRequest) -> ApiResponse:
    client = _authorized(req, "rule:delete")
    rule_id = _valid_id(req.params["id"])
    try:
        client.delete(RULES, rule_id)
    except NeutronError as exc:
        raise _refused(exc) from exc
    return ApiResponse(202)
