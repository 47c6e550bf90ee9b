"""The `createImage` and `createBackup` server actions: a snapshot of the server's disk
as a new private image of its project; a backup is one of a rotation, the oldest of
which its compute deletes beyond `rotation`. From 2.45 the answer's body names the
image; before, its Location header does, as Nova's (for a backup, only with a rotation:
one of 0 keeps nothing)."""

from __future__ import annotations

from novalite import exception
from novalite.api.compute import actions
from novalite.api.compute.schemas import server_actions as schema
from novalite.api.compute.views.images import image_service_url
from novalite.api.faults import HTTPFault
from novalite.api.request import ApiRequest, ApiResponse
from novalite.compute import quotas
from novalite.compute.api import API


def _checked_metadata(req: ApiRequest, body: dict) -> dict[str, str]:
    metadata = body.get("metadata") or {}
    try:
        quotas.check_metadata(metadata, req.ctx.project_id)
    except exception.MetadataLimitExceeded:
        raise HTTPFault(403, "Image metadata limit exceeded") from None
    return metadata


def _created(req: ApiRequest, image_id: str, located: bool = True) -> ApiResponse:
    if req.at_least("2.45"):
        return ApiResponse(202, {"image_id": image_id})
    if not located:
        return ApiResponse(202)
    return ApiResponse(202, headers={"Location": image_service_url(req.base_url, image_id)})


def create_image(req: ApiRequest) -> ApiResponse:
    instance = actions.target(req, schema.create_image, "servers:create_image")
    body = req.body["createImage"]
    image_id = API().snapshot(req.ctx, instance, body["name"], _checked_metadata(req, body))
    return _created(req, image_id)


def create_backup(req: ApiRequest) -> ApiResponse:
    """From 2.39 the metadata is not counted against the quota, as in Nova."""
    instance = actions.target(req, schema.create_backup, "os-create-backup")
    body = req.body["createBackup"]
    metadata = (body.get("metadata") or {}) if req.at_least("2.39") \
        else _checked_metadata(req, body)
    rotation = int(body["rotation"])
    image_id = API().backup(req.ctx, instance, body["name"], body["backup_type"], rotation,
                            metadata)
    return _created(req, image_id, located=rotation > 0)
