"""/os-quota-sets/{project_id}: the volume service's limits of a project, with `usage`
(in_use per resource), its defaults, and the admin's update and reset. A member reads its
own project's only (Cinder's volume_extension:quotas:show)."""

from __future__ import annotations

from typing import Any

from novalite import strutils
from novalite.api import policy
from novalite.api.compute.schemas import validate
from novalite.api.request import ApiRequest, ApiResponse
from novalite.api.volume import schemas
from novalite.db import session
from novalite.volume import errors, quotas


def _project(req: ApiRequest, rule: str) -> str:
    project_id: str = req.params["target"]
    policy.authorize(req.ctx, rule, project_id)
    return project_id


def _quota_set(project_id: str, values: dict[str, Any]) -> ApiResponse:
    return ApiResponse(200, {"quota_set": {"id": project_id, **values}})


def show(req: ApiRequest) -> ApiResponse:
    project_id = _project(req, "volume_extension:quotas:show")
    with_usage = strutils.parse_bool(req.query.get("usage", "false"))
    if with_usage is None:
        raise errors.InvalidInput(reason=f"Invalid value '{req.query['usage']}' for usage")
    with session.reader() as s:
        limits = quotas.limits(s, project_id)
        used = quotas.usage(s, project_id)
    if not with_usage:
        return _quota_set(project_id, limits)
    return _quota_set(project_id, {r: {"limit": limits[r], "in_use": used[r], "reserved": 0}
                                   for r in quotas.RESOURCES})


def defaults(req: ApiRequest) -> ApiResponse:
    return _quota_set(_project(req, "volume_extension:quotas:show"), quotas.defaults())


def update(req: ApiRequest) -> ApiResponse:
    validate(schemas.UPDATE_QUOTA, req.body)
    project_id = _project(req, "volume_extension:quotas:update")
    values = {k: int(v) for k, v in req.body["quota_set"].items()}
    with session.writer() as s:
        limits = quotas.update(s, project_id, values)
    return ApiResponse(200, {"quota_set": limits})


def delete(req: ApiRequest) -> ApiResponse:
    project_id = _project(req, "volume_extension:quotas:delete")
    with session.writer() as s:
        quotas.reset(s, project_id)
    return ApiResponse(200)
