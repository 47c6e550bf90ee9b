"""The `shelve`, `shelveOffload` and `unshelve` server actions (Nova's shelve API): park
a server as an image, give its host back (admins, or shelved_offload_time), and bring
it back, where it was or wherever the scheduler (or, from 2.91, an admin) puts it."""

from __future__ import annotations

from novalite import exception
from novalite.api import policy
from novalite.api.compute import servers
from novalite.api.compute.schemas import server_actions as schema
from novalite.api.compute.schemas import validate
from novalite.api.faults import HTTPFault
from novalite.api.request import ApiRequest, ApiResponse
from novalite.compute.api import API
from novalite.objects.request_spec import UnshelvePlacement

RULE = "os_compute_api:os-shelve:%s"


def shelve(req: ApiRequest) -> ApiResponse:
    validate(schema.shelve, req.body)
    instance = servers.get_instance(req)
    policy.authorize(req.ctx, RULE % "shelve", instance.project_id)
    API().shelve(req.ctx, instance)
    return ApiResponse(202)


def shelve_offload(req: ApiRequest) -> ApiResponse:
    validate(schema.shelve_offload, req.body)
    instance = servers.get_instance(req)
    policy.authorize(req.ctx, RULE % "shelve_offload", instance.project_id)
    API().shelve_offload(req.ctx, instance)
    return ApiResponse(202)


def _placement(req: ApiRequest) -> UnshelvePlacement | None:
    body = req.body["unshelve"] if req.at_least("2.77") else None
    if not body:
        return None
    if body.get("host"):
        policy.authorize(req.ctx, RULE % "unshelve_to_host")
    if "availability_zone" not in body and not body.get("host"):
        return None
    return UnshelvePlacement(availability_zone=body.get("availability_zone"),
                             unpin="availability_zone" in body
                             and body["availability_zone"] is None,
                             host=body.get("host"))


def unshelve(req: ApiRequest) -> ApiResponse:
    validate(schema.unshelve_for(req.version), req.body)
    instance = servers.get_instance(req)
    policy.authorize(req.ctx, RULE % "unshelve", instance.project_id)
    try:
        API().unshelve(req.ctx, instance, _placement(req))
    except exception.ComputeHostNotFound as exc:
        raise HTTPFault(400, exc.format_message()) from None
    return ApiResponse(202)
