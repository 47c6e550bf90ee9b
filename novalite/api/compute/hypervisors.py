"""Handlers of /os-hypervisors (admin only): the compute nodes, their usage and state.

From 2.53 nodes are named by uuid, and the search and servers routes give way to the
`hypervisor_hostname_pattern` and `with_servers` query parameters.
"""

from __future__ import annotations

import re
import uuid as uuidlib

from novalite import exception, strutils
from novalite.api import policy
from novalite.api.compute import paging
from novalite.api.compute.views import hypervisors as view
from novalite.api.compute.views.servers import instance_name
from novalite.api.faults import HTTPFault
from novalite.api.request import ApiRequest, ApiResponse
from novalite.compute import service_api
from novalite.compute.rpcapi import ComputeAPI
from novalite.db.api import compute_nodes, instances, services
from novalite.objects.compute_node import ComputeNode
from novalite.service import liveness

RULE = "os_compute_api:os-hypervisors:{}"
_LIST_PARAMS = {"limit", "marker", "hypervisor_hostname_pattern", "with_servers"}
_FQDN = re.compile(r"^[a-zA-Z0-9-._]*$")


def _not_found(ident: str) -> HTTPFault:
    return HTTPFault(404, f"Hypervisor with ID '{ident}' could not be found.")


def _no_match(pattern: str) -> HTTPFault:
    return HTTPFault(404, f"No hypervisor matching '{pattern}' could be found.")


def _check_params(req: ApiRequest, allowed: set[str]) -> None:
    """From 2.53 unknown query parameters are refused."""
    for key in req.query:
        if key not in allowed:
            raise HTTPFault(400, f"Additional properties are not allowed ('{key}' was "
                                 "unexpected)")


def _with_servers(req: ApiRequest) -> bool:
    value = req.query.get("with_servers")
    if value is None or not req.at_least("2.53"):
        return False
    parsed = strutils.parse_bool(value)
    if parsed is None:
        raise HTTPFault(400, f"Invalid input for query parameters with_servers. Value: "
                             f"{value}. '{value}' is not a valid boolean value")
    return parsed


def _hypervisors(nodes: list[ComputeNode], with_servers: bool) -> list[view.Hypervisor]:
    """The nodes with their compute services; a node whose service was deleted is left
    out, as Nova leaves it."""
    by_host = {s.host: s for s in services.service_get_all("novalite-compute")}
    hosted = instances.instance_ids_by_host({n.host for n in nodes}) if with_servers else {}
    return [view.Hypervisor(node, by_host[node.host],
                            liveness.service_is_up(by_host[node.host]),
                            [{"name": instance_name(row_id), "uuid": uuid}
                             for row_id, uuid in hosted.get(node.host, [])]
                            if with_servers else None)
            for node in nodes if node.host in by_host]


def _with_uptimes(req: ApiRequest, found: list[view.Hypervisor]) -> list[view.Hypervisor]:
    """From 2.88 the detail carries each host's uptime, asked of its compute service; a
    host that is down, or whose driver cannot tell, has none (as in Nova)."""
    if req.at_least("2.88"):
        for hyp in found:
            if hyp.is_up:
                hyp.uptime = service_api.host_uptime(req.ctx, hyp.node.host)
    return found


def _page(req: ApiRequest, nodes: list[ComputeNode]) -> list[ComputeNode]:
    """2.33 paging, ordered by node id; the marker is an id (a uuid from 2.53)."""
    limit, marker = paging.limit_and_marker(req)
    start = 0
    if marker is not None:
        key = "uuid" if req.at_least("2.53") else "id"
        ids = [str(getattr(n, key)) for n in nodes]
        if marker not in ids:
            raise HTTPFault(400, f"marker [{marker}] not found")
        start = ids.index(marker) + 1
    return nodes[start:start + limit]


def _pattern(req: ApiRequest) -> str | None:
    pattern = req.query.get("hypervisor_hostname_pattern") if req.at_least("2.53") else None
    if pattern is not None and not (_FQDN.match(pattern) and 0 < len(pattern) <= 255):
        raise HTTPFault(400, "Invalid input for query parameters hypervisor_hostname_pattern"
                             f". Value: {pattern}. '{pattern}' does not match "
                             "'^[a-zA-Z0-9-._]*$'")
    return pattern


def _search(pattern: str) -> list[ComputeNode]:
    nodes = compute_nodes.compute_node_search_by_hypervisor(pattern)
    if not nodes:
        raise _no_match(pattern)
    return nodes


def _list(req: ApiRequest, detail: bool) -> ApiResponse:
    policy.authorize(req.ctx, RULE.format("list-detail" if detail else "list"))
    if req.at_least("2.53"):
        _check_params(req, _LIST_PARAMS)
    pattern = _pattern(req)
    paged = req.at_least("2.33") and pattern is None
    if pattern is not None:
        if "limit" in req.query or "marker" in req.query:
            raise HTTPFault(400, "Paging over hypervisors with the "
                                 "hypervisor_hostname_pattern query parameter is not "
                                 "supported.")
        nodes = _search(pattern)
    else:
        nodes = compute_nodes.compute_node_get_all()
        nodes = _page(req, nodes) if paged else nodes
    found = _hypervisors(nodes, _with_servers(req))
    views = [view.hypervisor(h, req.version, detail)
             for h in (_with_uptimes(req, found) if detail else found)]
    body: dict = {"hypervisors": views}
    links = paging.next_links(req, "os-hypervisors/detail" if detail else "os-hypervisors",
                              views, "id") if paged else []
    if links:
        body["hypervisors_links"] = links
    return ApiResponse(200, body)


def index(req: ApiRequest) -> ApiResponse:
    return _list(req, detail=False)


def detail(req: ApiRequest) -> ApiResponse:
    return _list(req, detail=True)


def _node_ident(req: ApiRequest, ident: str) -> int | str:
    """A uuid from 2.53 (else 400), an integer before (else 404)."""
    if req.at_least("2.53"):
        try:
            uuidlib.UUID(ident)
        except ValueError:
            raise HTTPFault(400, f"Invalid uuid {ident}") from None
        return ident
    if not re.fullmatch(r"-?[0-9]+", ident.strip()):
        raise _not_found(ident)
    return int(ident)


def _one(req: ApiRequest, with_servers: bool) -> view.Hypervisor:
    ident = req.params["id"]
    try:
        node = compute_nodes.compute_node_get(_node_ident(req, ident))
    except exception.ComputeHostNotFound:
        raise _not_found(ident) from None
    found = _hypervisors([node], with_servers)
    if not found:
        raise _not_found(ident)
    return found[0]


def show(req: ApiRequest) -> ApiResponse:
    policy.authorize(req.ctx, RULE.format("show"))
    if req.at_least("2.53"):
        _check_params(req, {"with_servers"})
    (found,) = _with_uptimes(req, [_one(req, _with_servers(req))])
    return ApiResponse(200, {"hypervisor": view.hypervisor(found, req.version, True)})


def uptime(req: ApiRequest) -> ApiResponse:
    """Up to 2.87: the host's `uptime` line, asked of its compute service (which must be
    up); the driver may not know it (501)."""
    if req.at_least("2.88"):
        raise HTTPFault(404, "The resource could not be found.")
    policy.authorize(req.ctx, RULE.format("uptime"))
    found = _one(req, False)
    if not found.is_up:
        raise HTTPFault(400, f"Compute service of {found.node.host} is unavailable at this "
                             "time.")
    body = view.hypervisor(found, req.version, False)
    body["uptime"] = ComputeAPI().get_host_uptime(req.ctx, found.node.host)
    return ApiResponse(200, {"hypervisor": body})


def _before_2_53(req: ApiRequest) -> None:
    if req.at_least("2.53"):
        raise HTTPFault(404, "The resource could not be found.")


def search(req: ApiRequest) -> ApiResponse:
    """Before 2.53: the hypervisors whose hostname contains the pattern."""
    _before_2_53(req)
    policy.authorize(req.ctx, RULE.format("search"))
    nodes = _search(req.params["pattern"])
    return ApiResponse(200, {"hypervisors": [view.hypervisor(h, req.version, False)
                                             for h in _hypervisors(nodes, False)]})


def servers(req: ApiRequest) -> ApiResponse:
    """Before 2.53: the same, with the servers on each."""
    _before_2_53(req)
    policy.authorize(req.ctx, RULE.format("servers"))
    nodes = _search(req.params["pattern"])
    return ApiResponse(200, {"hypervisors": [view.hypervisor(h, req.version, False)
                                             for h in _hypervisors(nodes, True)]})


def statistics(req: ApiRequest) -> ApiResponse:
    """Up to 2.87: the sums of the usage figures that 2.88 took out of the views."""
    if req.at_least("2.88"):
        raise HTTPFault(404, "The resource could not be found.")
    policy.authorize(req.ctx, RULE.format("statistics"))
    nodes = compute_nodes.compute_node_get_all()
    return ApiResponse(200, view.statistics(_hypervisors(nodes, False)))
