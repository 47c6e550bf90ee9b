"""The `lock` and `unlock` server actions (Nova's lock_server): the owner's project or
an admin locks; lifting someone else's lock (an owner an admin's) needs the override
rule, admin-only by default. A reason may be given from 2.73."""

from __future__ import annotations

from novalite.api import policy
from novalite.api.compute.schemas import server_actions as schema
from novalite.api.compute.schemas import validate
from novalite.api.compute.servers import get_instance
from novalite.api.request import ApiRequest, ApiResponse
from novalite.compute import server_lock

RULE = "os_compute_api:os-lock-server:%s"


def lock(req: ApiRequest) -> ApiResponse:
    validate(schema.lock_v273 if req.at_least("2.73") else schema.lock, req.body)
    instance = get_instance(req)
    policy.authorize(req.ctx, RULE % "lock", instance.project_id)
    body = req.body["lock"]
    reason = body.get("locked_reason") if req.at_least("2.73") and body else None
    server_lock.lock(req.ctx, instance, reason)
    return ApiResponse(202)


def unlock(req: ApiRequest) -> ApiResponse:
    validate(schema.unlock, req.body)
    instance = get_instance(req)
    policy.authorize(req.ctx, RULE % "unlock", instance.project_id)
    if server_lock.locked_by_someone_else(req.ctx, instance):
        policy.authorize(req.ctx, RULE % "unlock:unlock_override", instance.project_id)
    server_lock.unlock(req.ctx, instance)
    return ApiResponse(202)
