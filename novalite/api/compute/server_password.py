"""Handlers of /servers/{id}/os-server-password: the encrypted password a guest posted.

Nova keeps it in the instance's system metadata, posted by the guest through the metadata
service; novalite has no metadata service yet, so no guest can post one and the password
is always the empty string Nova gives before a guest posts one. Clearing it is accepted
and, with nothing stored, leaves it empty.
"""

from __future__ import annotations

from novalite.api import policy
from novalite.api.compute.servers import get_instance
from novalite.api.request import ApiRequest, ApiResponse

RULE = "os_compute_api:os-server-password:{}"


def index(req: ApiRequest) -> ApiResponse:
    instance = get_instance(req)
    policy.authorize(req.ctx, RULE.format("show"), instance.project_id)
    return ApiResponse(200, {"password": ""})


def clear(req: ApiRequest) -> ApiResponse:
    instance = get_instance(req)
    policy.authorize(req.ctx, RULE.format("clear"), instance.project_id)
    return ApiResponse(204)
