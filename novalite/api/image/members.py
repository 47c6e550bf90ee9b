"""Handlers of /v2/images/{id}/members: the owner shares a `shared` image with projects,
each of which accepts or rejects it (Glance's image members controller)."""

from __future__ import annotations

from novalite.api.faults import HTTPFault
from novalite.api.image.authorize import authorize
from novalite.api.image.images import owned_image
from novalite.api.image.views import members as view
from novalite.api.request import ApiRequest, ApiResponse
from novalite.image import api, visibility
from novalite.image import db as images

_MISSING = {"member": "Member to be added not specified", "status": "Status not specified"}


def _field(req: ApiRequest, name: str) -> str:
    body = req.body
    if not isinstance(body, dict) or not isinstance(body.get(name), str):
        raise HTTPFault(400, _MISSING[name])
    if len(body[name]) > 255:
        raise HTTPFault(400, f"Provided object does not match schema 'member': "
                             f"'{body[name]}' is too long")
    return body[name]


def create(req: ApiRequest) -> ApiResponse:
    member_id = _field(req, "member")
    image = owned_image(req, "add_member")
    return ApiResponse(200, view.show(api.add_member(image, member_id)))


def index(req: ApiRequest) -> ApiResponse:
    authorize(req.ctx, "get_members")
    image = api.get(req.ctx, req.params["image_id"])
    if image.visibility != "shared":
        raise HTTPFault(403, "Only shared images have members.")
    return ApiResponse(200, {"members": [view.show(m) for m in api.members(req.ctx, image)],
                             "schema": "/v2/schemas/members"})


def show(req: ApiRequest) -> ApiResponse:
    authorize(req.ctx, "get_member")
    image = api.get(req.ctx, req.params["image_id"])
    return ApiResponse(200, view.show(api.member(req.ctx, image, req.params["member_id"])))


def update(req: ApiRequest) -> ApiResponse:
    status = _field(req, "status")
    if status not in visibility.MEMBER_STATUSES:
        raise HTTPFault(400, f"Invalid status: {status}")
    image = api.get(req.ctx, req.params["image_id"])
    member_id = req.params["member_id"]
    api.member(req.ctx, image, member_id)
    authorize(req.ctx, "modify_member", member_id)
    return ApiResponse(200, view.show(images.member_update(image.id, member_id, status)))


def delete(req: ApiRequest) -> ApiResponse:
    image = owned_image(req, "delete_member")
    images.member_delete(image.id, req.params["member_id"])
    return ApiResponse(204)
