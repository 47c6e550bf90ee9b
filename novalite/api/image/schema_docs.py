"""Handlers of /v2/schemas/...: the JSON schemas Glance publishes for its documents."""

from __future__ import annotations

from novalite.api.image.schemas import image, member
from novalite.api.request import ApiRequest, ApiResponse


def show_image(req: ApiRequest) -> ApiResponse:
    return ApiResponse(200, image.IMAGE)


def show_images(req: ApiRequest) -> ApiResponse:
    return ApiResponse(200, image.IMAGES)


def show_member(req: ApiRequest) -> ApiResponse:
    return ApiResponse(200, member.MEMBER)


def show_members(req: ApiRequest) -> ApiResponse:
    return ApiResponse(200, member.MEMBERS)
