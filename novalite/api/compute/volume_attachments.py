"""/servers/{id}/os-volume_attachments: the volumes attached to a server, attached and
detached through the compute API (novalite.compute.volumes_api), and from 2.85 an
attachment's delete_on_termination changed. A different volume in an update is a swap,
which only the volume service may ask for while it migrates a volume; novalite's never
migrate, so it is refused as Nova refuses it for a volume that does not migrate."""

from __future__ import annotations

import re

from novalite import exception, strutils
from novalite.api import policy
from novalite.api.compute import query
from novalite.api.compute.schemas import validate
from novalite.api.compute.schemas import volume_attachments as schema
from novalite.api.compute.servers import get_instance
from novalite.api.compute.views import volume_attachments as view
from novalite.api.faults import HTTPFault
from novalite.api.request import ApiRequest, ApiResponse
from novalite.compute import multiattach
from novalite.compute.volumes_api import VolumeAttachAPI
from novalite.conf import CONF
from novalite.db.api import block_devices
from novalite.objects.block_device import BlockDeviceMapping
from novalite.objects.instance import Instance

RULE = "os_compute_api:os-volumes-attachments:%s"
_NON_NEGATIVE = re.compile(r"^[0-9]+$")


def _server(req: ApiRequest, action: str) -> Instance:
    instance = get_instance(req)
    policy.authorize(req.ctx, RULE % action, instance.project_id)
    return instance


def _not_attached(instance: Instance, volume_id: str) -> HTTPFault:
    return HTTPFault(404, f"Instance {instance.uuid} is not attached to volume {volume_id}")


def _mapping(instance: Instance, volume_id: str) -> BlockDeviceMapping:
    try:
        return block_devices.bdm_get_by_volume_and_instance(volume_id, instance.uuid)
    except exception.VolumeBDMNotFound:
        raise _not_attached(instance, volume_id) from None


def _paging(req: ApiRequest) -> tuple[int, int]:
    """Nova's `limit` and `offset` (common.limited), limit capped at [api] max_limit."""
    found = []
    for name, default in (("limit", CONF.api.max_limit), ("offset", 0)):
        value = req.query.get(name)
        if value is not None and not _NON_NEGATIVE.match(value):
            raise HTTPFault(400, f"Invalid input for query parameters {name}. Value: "
                                 f"{value}. '{value}' does not match '^[0-9]*$'")
        found.append(default if value is None else int(value))
    return min(found[0], CONF.api.max_limit), found[1]


def index(req: ApiRequest) -> ApiResponse:
    instance = _server(req, "index")
    query.only_from(req, "2.75", ("limit", "offset"))
    limit, offset = _paging(req)
    shown = [bdm for bdm in block_devices.bdm_get_all_by_instance(instance.uuid)
             [offset:offset + limit]
             if bdm.volume_id and (bdm.attachment_id or not req.at_least("2.89"))]
    return ApiResponse(200, {"volumeAttachments": [view.attachment(bdm, req.version)
                                                   for bdm in shown]})


def show(req: ApiRequest) -> ApiResponse:
    instance = _server(req, "show")
    bdm = _mapping(instance, req.params["volume_id"])
    if req.at_least("2.89") and bdm.attachment_id is None:
        raise _not_attached(instance, req.params["volume_id"])
    return ApiResponse(200, {"volumeAttachment": view.attachment(bdm, req.version)})


def _bool(value: object) -> bool:
    """A value the schema's enum let through is a truth word."""
    return bool(value) if isinstance(value, bool) else strutils.parse_bool(value) is True


def create(req: ApiRequest) -> ApiResponse:
    validate(schema.create_for(req.version), req.body)
    instance = _server(req, "create")
    body = req.body["volumeAttachment"]
    bdm = VolumeAttachAPI().attach(req.ctx, instance, body["volumeId"], body.get("device"),
                                   body.get("tag"),
                                   _bool(body.get("delete_on_termination", False)),
                                   shelved=req.at_least("2.20"),
                                   supports_multiattach=req.at_least(multiattach.MICROVERSION))
    return ApiResponse(200, {"volumeAttachment": view.attached(bdm, req.version)})


def update(req: ApiRequest) -> ApiResponse:
    """From 2.85 the attachment's own fields: only delete_on_termination changes, the
    others must say what they are (Nova's 400s); a different volume (or any update
    before 2.85) is a swap."""
    validate(schema.update_for(req.version), req.body)
    instance = get_instance(req)
    body = req.body["volumeAttachment"]
    volume_id = req.params["volume_id"]
    if not req.at_least("2.85") or body["volumeId"] != volume_id:
        policy.authorize(req.ctx, RULE % "swap")
        VolumeAttachAPI.volume(req.ctx, volume_id)
        raise HTTPFault(409, f"volume {volume_id} is not migrating; this API should only "
                             "be called by Cinder")
    policy.authorize(req.ctx, RULE % "update", instance.project_id)
    bdm = block_devices.bdm_get_by_volume_and_instance(volume_id, instance.uuid)
    for field, current in (("id", volume_id), ("serverId", instance.uuid),
                           ("device", bdm.device_name), ("tag", bdm.tag)):
        if field in body and body[field] != current:
            raise HTTPFault(400, f"The {field} property is not mutable")
    if "delete_on_termination" in body:
        block_devices.bdm_update(bdm.uuid, {
            "delete_on_termination": _bool(body["delete_on_termination"])})
    return ApiResponse(202)


def delete(req: ApiRequest) -> ApiResponse:
    instance = _server(req, "delete")
    volume_id = req.params["volume_id"]
    VolumeAttachAPI.volume(req.ctx, volume_id)
    bdm = _mapping(instance, volume_id)
    if bdm.is_root:
        raise HTTPFault(400, "Cannot detach a root device volume")
    VolumeAttachAPI().detach(req.ctx, instance, bdm, shelved=req.at_least("2.20"))
    return ApiResponse(202)
