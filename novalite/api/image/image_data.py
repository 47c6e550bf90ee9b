"""Handlers of /v2/images/{id}/file: upload and download, streamed both ways (Glance's
image_data controller)."""

from __future__ import annotations

from novalite.api.faults import HTTPFault
from novalite.api.image.authorize import authorize
from novalite.api.image.images import owned_image
from novalite.api.request import ApiRequest, ApiResponse, streams_body
from novalite.conf import CONF
from novalite.image import api, errors

_OCTET_STREAM = "application/octet-stream"


def _declared_size(req: ApiRequest) -> None:
    """Refuse a body announced as too large before reading any of it."""
    length = req.headers.get("content-length")
    if length and length.isdigit() and int(length) > CONF.image_size_cap:
        raise errors.ImageTooLarge()


@streams_body
def upload(req: ApiRequest) -> ApiResponse:
    media_type = (req.headers.get("content-type") or _OCTET_STREAM).split(";")[0].strip()
    if media_type != _OCTET_STREAM:
        raise HTTPFault(415, f"Content-Type must be {_OCTET_STREAM}, not {media_type}")
    image = owned_image(req, "upload_image")
    _declared_size(req)
    api.upload(image.id, req.body)
    return ApiResponse(204)


def download(req: ApiRequest) -> ApiResponse:
    authorize(req.ctx, "download_image")
    image = api.get(req.ctx, req.params["image_id"])
    chunks = api.download(req.ctx, image)
    headers = {"Content-Length": str(image.size)}
    if image.checksum:
        headers["Content-MD5"] = image.checksum
    return ApiResponse(200, headers=headers, stream=chunks, media_type=_OCTET_STREAM)
