"""Handlers of /os-server-groups: a project's server groups, by Nova's rules.

As in Nova: a body is validated before the policy check; a non-admin finds only its own
project's groups (404 for another's); the list is the caller's project's, or every
project's for an admin passing `all_projects`; `limit` (0: the maximum) and `offset`
slice it; create answers 200.
"""

from __future__ import annotations

from novalite.api import policy
from novalite.api.compute.schemas import server_groups as schema
from novalite.api.compute.schemas import validate
from novalite.api.compute.views import server_groups as view
from novalite.api.faults import HTTPFault
from novalite.api.request import ApiRequest, ApiResponse
from novalite.compute import server_groups as groups_api
from novalite.conf import CONF
from novalite.db.api import server_groups as db

_RULE = "os_compute_api:os-server-groups:"


def _scope(req: ApiRequest) -> str | None:
    return None if req.ctx.is_admin else req.ctx.project_id


def _query_int(req: ApiRequest, name: str) -> int | None:
    """Nova's non-negative integer query parameter (the last value counts)."""
    values = req.query.getlist(name)
    for value in values:
        if not value.isdigit():
            why = "is too short" if not value else "does not match '^[0-9]*$'"
            raise HTTPFault(400, f"Invalid input for query parameters {name}. Value: "
                                 f"{value}. '{value}' {why}")
    return int(values[-1]) if values else None


def _limited(req: ApiRequest, items: list) -> list:
    offset = _query_int(req, "offset") or 0
    limit = min(CONF.api.max_limit, _query_int(req, "limit") or CONF.api.max_limit)
    return items[offset:offset + limit]


def _rules(req: ApiRequest) -> dict[str, int]:
    """max_server_per_host as an int: a string must also be at least 1 (Nova's check)."""
    rules = dict(req.body["server_group"].get("rules") or {})
    if "max_server_per_host" in rules:
        value = rules["max_server_per_host"]
        if int(value) < 1:
            raise HTTPFault(400, "Invalid input for field/attribute max_server_per_host. "
                                 f"Value: {value}. {int(value)} is less than the minimum of 1")
        rules["max_server_per_host"] = int(value)
    return rules


def index(req: ApiRequest) -> ApiResponse:
    policy.authorize(req.ctx, _RULE + "index", req.ctx.project_id)
    if "all_projects" in req.query and req.ctx.is_admin:  # its value is not read (Nova)
        policy.authorize(req.ctx, _RULE + "index:all_projects", req.ctx.project_id)
        groups = db.group_get_all()
    else:
        groups = db.group_get_all(project_id=req.ctx.project_id)
    return ApiResponse(200, {"server_groups": [view.show(g, req.version)
                                               for g in _limited(req, groups)]})


def create(req: ApiRequest) -> ApiResponse:
    validate(schema.create_for(req.version), req.body)
    rules = _rules(req) if req.at_least("2.64") else {}
    policy.authorize(req.ctx, _RULE + "create", req.ctx.project_id)
    body = req.body["server_group"]
    chosen = body["policy"] if req.at_least("2.64") else body["policies"][0]
    group = groups_api.create(req.ctx, body["name"], chosen, rules)
    return ApiResponse(200, {"server_group": view.show(group, req.version)})


def show(req: ApiRequest) -> ApiResponse:
    group = db.group_get(req.params["id"], _scope(req))
    policy.authorize(req.ctx, _RULE + "show", group["project_id"])
    return ApiResponse(200, {"server_group": view.show(group, req.version)})


def delete(req: ApiRequest) -> ApiResponse:
    group = db.group_get(req.params["id"], _scope(req))
    policy.authorize(req.ctx, _RULE + "delete", group["project_id"])
    groups_api.delete(req.ctx, group)
    return ApiResponse(204)
