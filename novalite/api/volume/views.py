"""How volumes, volume types, messages and attachments are rendered, per microversion, as
Cinder's views are (cinder/api/v3/views): a volume's `bootable` is the string "true" or
"false"."""

from __future__ import annotations

import datetime
from typing import Any

from novalite.api import policy
from novalite.api.request import ApiRequest
from novalite.volume.records import Attachment, Message, Snapshot, Volume, VolumeType

_TENANT_RULE = "volume_extension:volume_tenant_attribute"
_HOST_RULE = "volume_extension:volume_host_attribute"
_ATTRIBUTE_RULES = (_TENANT_RULE, _HOST_RULE)


def timestamp(value: datetime.datetime | None) -> str | None:
    return value.strftime("%Y-%m-%dT%H:%M:%S.%f") if value else None


def links(req: ApiRequest, collection: str, item_id: str) -> list[dict[str, str]]:
    project = f"/{req.ctx.project_id}" if req.ctx.project_id else ""
    return [{"rel": "self", "href": f"{req.base_url}/v3{project}/{collection}/{item_id}"},
            {"rel": "bookmark", "href": f"{req.base_url}{project}/{collection}/{item_id}"}]


def volume_summary(req: ApiRequest, volume: Volume) -> dict[str, Any]:
    return {"id": volume.id, "name": volume.name,
            "links": links(req, "volumes", volume.id)}


def volume(req: ApiRequest, vol: Volume) -> dict[str, Any]:
    view: dict[str, Any] = {
        "id": vol.id, "status": vol.status, "size": vol.size,
        "availability_zone": vol.availability_zone,
        "created_at": timestamp(vol.created_at), "updated_at": timestamp(vol.updated_at),
        "name": vol.name, "description": vol.description,
        "volume_type": vol.volume_type.name, "snapshot_id": vol.snapshot_id,
        "source_volid": vol.source_volid, "metadata": vol.metadata,
        "links": links(req, "volumes", vol.id), "user_id": vol.user_id,
        "bootable": "true" if vol.bootable else "false", "encrypted": False,
        "replication_status": None, "consistencygroup_id": None,
        "multiattach": vol.multiattach,
        "attachments": [volume_attachment(req, a) for a in vol.attachments
                        if a.status == "attached"],
    }
    shown = policy.passing(req.ctx, _ATTRIBUTE_RULES,
                           policy.project_target(req.ctx, vol.project_id))
    if _TENANT_RULE in shown:
        view["os-vol-tenant-attr:tenant_id"] = vol.project_id
    if _HOST_RULE in shown:
        view["os-vol-host-attr:host"] = vol.host
    if req.ctx.is_admin:
        view["migration_status"] = None
    if vol.image_id:
        view["volume_image_metadata"] = {"image_id": vol.image_id}
    if req.at_least("3.13"):
        view["group_id"] = None
    if req.at_least("3.48"):
        view["shared_targets"] = False  # one host per export: nothing shared
        view["service_uuid"] = None
    if req.at_least("3.63"):
        view["volume_type_id"] = vol.volume_type.id
    if req.at_least("3.65"):
        view["consumes_quota"] = True
    return view


def volume_attachment(req: ApiRequest, attachment: Attachment) -> dict[str, Any]:
    """An attached attachment in its volume's view; which host it is on is only for
    admins and services (Cinder's)."""
    shows_host = req.ctx.is_admin or "service" in req.ctx.roles
    return {"id": attachment.volume_id, "attachment_id": attachment.id,
            "volume_id": attachment.volume_id, "server_id": attachment.instance_uuid,
            "host_name": attachment.attached_host if shows_host else None,
            "device": attachment.mountpoint,
            "attached_at": timestamp(attachment.attach_time)}


def attachment_summary(attachment: Attachment) -> dict[str, Any]:
    return {"id": attachment.id, "status": attachment.status,
            "instance": attachment.instance_uuid, "volume_id": attachment.volume_id}


def attachment(attached: Attachment) -> dict[str, Any]:
    """Cinder's detail: the connection the consumer connects with (its data flattened
    beside driver_volume_type, as Cinder stores it); times absent are ""."""
    return {**attachment_summary(attached),
            "attached_at": timestamp(attached.attach_time) or "", "detached_at": "",
            "attach_mode": attached.attach_mode,
            "connection_info": attached.connection_info or {}}


def volume_type(req: ApiRequest, vtype: VolumeType, specs: bool) -> dict[str, Any]:
    """`extra_specs` only for who may read them (Cinder hides them from the others)."""
    view: dict[str, Any] = {"id": vtype.id, "name": vtype.name,
                            "description": vtype.description,
                            "is_public": vtype.is_public,
                            "os-volume-type-access:is_public": vtype.is_public,
                            "qos_specs_id": None}
    if specs:
        view["extra_specs"] = vtype.extra_specs
    return view


def message(req: ApiRequest, msg: Message) -> dict[str, Any]:
    return {"id": msg.id, "event_id": msg.event_id, "user_message": msg.user_message,
            "message_level": msg.message_level, "created_at": timestamp(msg.created_at),
            "guaranteed_until": timestamp(msg.expires_at), "request_id": msg.request_id,
            "resource_type": msg.resource_type, "resource_uuid": msg.resource_uuid,
            "links": links(req, "messages", msg.id)}


def snapshot(req: ApiRequest, snap: Snapshot, detail: bool) -> dict[str, Any]:
    view: dict[str, Any] = {
        "id": snap.id, "created_at": timestamp(snap.created_at),
        "updated_at": timestamp(snap.updated_at), "name": snap.name,
        "description": snap.description, "volume_id": snap.volume_id,
        "status": snap.status, "size": snap.volume_size, "metadata": snap.metadata}
    if detail and policy.check(req.ctx, "volume_extension:extended_snapshot_attributes",
                               snap.project_id):
        view["os-extended-snapshot-attributes:progress"] = (
            "100%" if snap.status == "available" else snap.progress or "0%")
        view["os-extended-snapshot-attributes:project_id"] = snap.project_id
    if req.at_least("3.14"):
        view["group_snapshot_id"] = None
    if req.at_least("3.41"):
        view["user_id"] = snap.user_id
    if req.at_least("3.65"):
        view["consumes_quota"] = True
    return view
