"""Handlers of /servers/{id}/os-server-password: the encrypted password a guest posted
to the metadata service (novalite.api.metadata), kept in the instance's system metadata
as Nova keeps it; "" until one is posted. Clearing it lets the guest post another."""

from __future__ import annotations

from novalite import instance_metadata
from novalite.api import policy
from novalite.api.compute.servers import get_instance
from novalite.api.request import ApiRequest, ApiResponse
from novalite.db.api import instances

RULE = "os_compute_api:os-server-password:{}"


def index(req: ApiRequest) -> ApiResponse:
    instance = get_instance(req)
    policy.authorize(req.ctx, RULE.format("show"), instance.project_id)
    return ApiResponse(200, {"password": instance_metadata.password(instance.system_metadata)})


def clear(req: ApiRequest) -> ApiResponse:
    instance = get_instance(req)
    policy.authorize(req.ctx, RULE.format("clear"), instance.project_id)
    instances.system_metadata_update(instance.uuid,
                                     lambda _: instance_metadata.password_chunks(""))
    return ApiResponse(204)
