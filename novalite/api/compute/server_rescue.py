"""The `rescue` and `unrescue` server actions (Nova's rescue API): the server boots from
a rescue image (its own unless `rescue_image_ref` names another) so its user can repair
its disk, and back. The answer carries the rescue password, as Nova's does."""

from __future__ import annotations

from novalite.api import policy
from novalite.api.compute import servers
from novalite.api.compute.schemas import server_actions as schema
from novalite.api.compute.schemas import validate
from novalite.api.request import ApiRequest, ApiResponse
from novalite.compute.api import API


def rescue(req: ApiRequest) -> ApiResponse:
    validate(schema.rescue, req.body)
    instance = servers.get_instance(req)
    policy.authorize(req.ctx, "os_compute_api:os-rescue", instance.project_id)
    body = req.body["rescue"] or {}
    password = body.get("adminPass") or servers.new_password()
    API().rescue(req.ctx, instance, password, body.get("rescue_image_ref"))
    return ApiResponse(200, {"adminPass": password})


def unrescue(req: ApiRequest) -> ApiResponse:
    validate(schema.unrescue, req.body)
    instance = servers.get_instance(req)
    policy.authorize(req.ctx, "os_compute_api:os-unrescue", instance.project_id)
    API().unrescue(req.ctx, instance)
    return ApiResponse(202)
