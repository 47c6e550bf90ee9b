"""POST /volumes/{id}/action: dispatched on the body's one key, as Cinder does. Served:
`os-extend` (of an attached volume too from 3.42), `os-set_bootable`,
`os-volume_upload_image`, and `os-begin_detaching` / `os-roll_detaching` (Nova's steps
around a detach); Cinder's other actions answer 501 naming the action, an unknown one
400."""

from __future__ import annotations

from novalite.api import policy
from novalite.api.compute.schemas import validate
from novalite.api.faults import HTTPFault
from novalite.api.request import ApiRequest, ApiResponse, Handler
from novalite.api.volume import schemas, views
from novalite.api.volume.volumes import found, scope
from novalite.strutils import parse_bool
from novalite.volume import api as volume_api
from novalite.volume import attach, errors, uploads

# Cinder's volume actions that novalite does not serve (yet)
UNSERVED = frozenset({
    "os-attach", "os-detach", "os-reserve", "os-unreserve",
    "os-initialize_connection", "os-terminate_connection",
    "os-update_readonly_flag", "os-retype",
    "os-reimage", "os-reset_status", "os-force_delete", "os-force_detach",
    "os-migrate_volume", "os-migrate_volume_completion", "os-set_image_metadata",
    "os-unset_image_metadata", "os-show_image_metadata", "os-unmanage", "revert",
    "os-extend_volume_completion", "os-volume-migration-status-attr",
})


def extend(req: ApiRequest) -> ApiResponse:
    validate(schemas.EXTEND, req.body)
    volume = found(req, "volume:extend")
    volume_api.extend(req.ctx, scope(req), volume.id, int(req.body["os-extend"]["new_size"]),
                      in_use=req.at_least("3.42"))
    return ApiResponse(202)


def set_bootable(req: ApiRequest) -> ApiResponse:
    """The flag only, as Cinder's: what the volume holds is the user's business."""
    validate(schemas.SET_BOOTABLE, req.body)
    bootable = parse_bool(req.body["os-set_bootable"]["bootable"])
    if bootable is None:
        raise errors.InvalidInput(reason=f"Invalid value "
                                         f"'{req.body['os-set_bootable']['bootable']}' for "
                                         "bootable.")
    volume = found(req, "volume:update")
    volume_api.update(scope(req), volume.id, {"bootable": bootable})
    return ApiResponse(200)


def begin_detaching(req: ApiRequest) -> ApiResponse:
    volume = found(req, "volume_extension:volume_actions:begin_detaching")
    attach.begin_detaching(scope(req), volume.id)
    return ApiResponse(202)


def roll_detaching(req: ApiRequest) -> ApiResponse:
    volume = found(req, "volume_extension:volume_actions:roll_detaching")
    attach.roll_detaching(scope(req), volume.id)
    return ApiResponse(202)


def upload_image(req: ApiRequest) -> ApiResponse:
    """The volume into a new image (novalite.volume.uploads); a public image only for
    an admin (Cinder's upload_public rule)."""
    validate(schemas.upload_image(req.version), req.body)
    asked = req.body["os-volume_upload_image"]
    volume = found(req, "volume_extension:volume_actions:upload_image")
    request = uploads.Request(
        image_name=asked["image_name"], force=_flag(asked, "force"),
        disk_format=asked.get("disk_format", "raw"),
        container_format=asked.get("container_format", "bare"),
        visibility=asked.get("visibility", "private"),
        protected=_flag(asked, "protected"))
    if request.visibility == "public":
        policy.authorize(req.ctx, "volume_extension:volume_actions:upload_public")
    uploading, image = uploads.upload(req.ctx, scope(req), volume.id, request)
    view = {"id": uploading.id, "updated_at": views.timestamp(uploading.updated_at),
            "status": uploading.status, "display_description": uploading.description,
            "size": uploading.size,
            "volume_type": views.volume_type(req, uploading.volume_type, False),
            "image_id": image.id, "container_format": image.container_format,
            "disk_format": image.disk_format, "image_name": image.name}
    if req.at_least("3.1"):
        view.update(visibility=image.visibility, protected=image.protected)
    return ApiResponse(202, {"os-volume_upload_image": view})


def _flag(asked: dict, key: str) -> bool:
    return parse_bool(str(asked.get(key, False))) is True


ACTIONS: dict[str, Handler] = {"os-extend": extend, "os-set_bootable": set_bootable,
                               "os-begin_detaching": begin_detaching,
                               "os-roll_detaching": roll_detaching,
                               "os-volume_upload_image": upload_image}


def action(req: ApiRequest) -> ApiResponse:
    if not isinstance(req.body, dict) or len(req.body) != 1:
        raise HTTPFault(400, "Malformed request body")
    (name,) = req.body
    if name in ACTIONS:
        return ACTIONS[name](req)
    if name in UNSERVED:
        raise HTTPFault(501, f"The {name} volume action is not implemented by novalite.")
    raise HTTPFault(400, f"There is no such action: {name}")
