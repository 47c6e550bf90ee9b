"""Handlers of /v2/images/{id}/tags/{tag} (Glance guards tags with modify_image)."""

from __future__ import annotations

from novalite.api.faults import HTTPFault
from novalite.api.image.images import owned_image
from novalite.api.request import ApiRequest, ApiResponse
from novalite.image import api


def update(req: ApiRequest) -> ApiResponse:
    tag = req.params["tag"]
    if len(tag) > 255:
        raise HTTPFault(400, f"Provided object does not match schema 'image': '{tag}' is "
                             "too long")
    api.add_tag(owned_image(req, "modify_image"), tag)
    return ApiResponse(204)


def delete(req: ApiRequest) -> ApiResponse:
    api.delete_tag(owned_image(req, "modify_image"), req.params["tag"])
    return ApiResponse(204)
