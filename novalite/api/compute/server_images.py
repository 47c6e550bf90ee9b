"""The `createImage` server action: a snapshot of the server's disk as a new private
image of its project. From 2.45 the answer's body names the image; before, its
Location header does, as Nova's."""

from __future__ import annotations

from novalite import exception
from novalite.api import policy
from novalite.api.compute import servers
from novalite.api.compute.schemas import server_actions as schema
from novalite.api.compute.schemas import validate
from novalite.api.compute.views.images import image_service_url
from novalite.api.faults import HTTPFault
from novalite.api.request import ApiRequest, ApiResponse
from novalite.compute import quotas
from novalite.compute.api import API


def create_image(req: ApiRequest) -> ApiResponse:
    validate(schema.create_image, req.body)
    instance = servers.get_instance(req)
    policy.authorize(req.ctx, "os_compute_api:servers:create_image", instance.project_id)
    body = req.body["createImage"]
    metadata = body.get("metadata") or {}
    try:
        quotas.check_metadata(metadata, req.ctx.project_id)
    except exception.MetadataLimitExceeded:
        raise HTTPFault(403, "Image metadata limit exceeded") from None
    image_id = API().snapshot(req.ctx, instance, body["name"], metadata)
    if req.at_least("2.45"):
        return ApiResponse(202, {"image_id": image_id})
    return ApiResponse(202, headers={"Location": image_service_url(req.base_url, image_id)})
