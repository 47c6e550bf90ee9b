"""Handlers of /os-quota-sets/{project_id}[/defaults|/detail], optionally for one user
of the project (`?user_id=`): show, detail (limit, in_use, reserved), defaults, update
(within what is used unless `force`; a user's within the project's) and delete (back
to the defaults)."""

from __future__ import annotations

from typing import Any

from novalite import strutils
from novalite.api import policy
from novalite.api.compute import query
from novalite.api.compute.schemas import quotas as schema
from novalite.api.compute.schemas import validate
from novalite.api.faults import HTTPFault
from novalite.api.request import ApiRequest, ApiResponse
from novalite.compute import quotas
from novalite.db.api import quotas as quota_db

RULE = "os_compute_api:os-quota-sets:%s"


def _shown(req: ApiRequest, values: dict[str, Any], project_id: str | None) -> dict:
    hidden = schema.hidden(req.version, (2, 36))
    body = {r: values[r] for r in schema.RESOURCES if r not in hidden}
    return {"quota_set": {"id": project_id, **body} if project_id else body}


def _target(req: ApiRequest, rule: str) -> tuple[str, str | None]:
    project_id = req.params["project_id"]
    policy.authorize(req.ctx, RULE % rule, project_id)
    if rule != "defaults":
        query.only_from(req, "2.75", ("user_id",))
    return project_id, req.query.get("user_id")


def show(req: ApiRequest) -> ApiResponse:
    project_id, user_id = _target(req, "show")
    return ApiResponse(200, _shown(req, quotas.limits(project_id, user_id), project_id))


def detail(req: ApiRequest) -> ApiResponse:
    project_id, user_id = _target(req, "detail")
    limits = quotas.limits(project_id, user_id)
    usage = quotas.project_usage(project_id, user_id)
    return ApiResponse(200, _shown(req, {r: {"limit": limits[r], "in_use": usage[r],
                                             "reserved": 0} for r in schema.RESOURCES},
                                   project_id))


def defaults(req: ApiRequest) -> ApiResponse:
    project_id, _ = _target(req, "defaults")
    return ApiResponse(200, _shown(req, quotas.defaults(), project_id))


def _unlimited(value: int) -> float:
    return float("inf") if value == -1 else value


def _check(resource: str, limit: int, minimum: int, maximum: int) -> None:
    if _unlimited(limit) < _unlimited(minimum):
        raise HTTPFault(400, f"Quota limit {limit} for {resource} must be greater than or "
                             f"equal to already used and reserved {minimum}.")
    if _unlimited(limit) > _unlimited(maximum):
        raise HTTPFault(400, f"Quota limit {limit} for {resource} must be less than or "
                             f"equal to {maximum}.")


def update(req: ApiRequest) -> ApiResponse:
    validate(schema.update_for(req.version, "quota_set", (2, 36)), req.body)
    project_id, user_id = _target(req, "update")
    body = dict(req.body["quota_set"])
    force = strutils.parse_bool(body.pop("force", "false")) is True
    wanted = {r: int(v) for r, v in body.items()}
    if not force:
        usage = quotas.project_usage(project_id, user_id)
        project_limits = quotas.limits(project_id)
        for resource, limit in wanted.items():
            maximum = project_limits[resource] if user_id else -1
            _check(resource, limit, usage[resource], maximum)
    quota_db.limits_set(wanted, project_id, user_id)
    return ApiResponse(200, _shown(req, quotas.limits(project_id, user_id), None))


def delete(req: ApiRequest) -> ApiResponse:
    project_id, user_id = _target(req, "delete")
    quota_db.limits_destroy(project_id, user_id)
    return ApiResponse(202)
