"""What the volume API does for a request beyond HTTP (Cinder's cinder/volume/api.py):
check it against the volume's state, record it, and cast the slow part to a volume
manager. The caller's project scopes every lookup (None: an admin's view of all)."""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy.orm import Session

from novalite.conf import CONF
from novalite.context import RequestContext
from novalite.db import session
from novalite.volume import errors, quotas, states, volume_types, volumes
from novalite.volume.records import Volume
from novalite.volume.rpcapi import VolumeAPI

_DELETE_REFUSED = (
    "Volume status must be {} and must not be migrating, attached, belong to a group, have "
    "snapshots, awaiting a transfer, or be disassociated from snapshots after volume "
    "transfer.").format(" or ".join(states.DELETABLE))


def _availability_zone(requested: str | None) -> str:
    """The one zone this service offers (Cinder answers the same for an unknown zone)."""
    zone: str = CONF.storage_availability_zone
    if requested is not None and requested != zone:
        raise errors.InvalidInput(reason=f"Availability zone '{requested}' is invalid.")
    return zone


def _volume_type(s: Session, requested: str | None) -> str:
    return (volume_types.find(s, requested) if requested else volume_types.default(s)).id


def create(ctx: RequestContext, size: int, fields: dict[str, Any]) -> Volume:
    """Record the volume `creating` and cast its creation; `fields` holds name,
    description, metadata, volume_type, availability_zone and bootable, all optional."""
    project_id = ctx.require_project_id()
    with session.writer() as s:
        quotas.check(s, project_id, volumes=1, gigabytes=size)
        volume = volumes.create(s, {
            "id": str(uuid.uuid4()), "project_id": project_id,
            "user_id": ctx.user_id, "display_name": fields.get("name"),
            "display_description": fields.get("description"), "size": size,
            "status": states.CREATING,
            "availability_zone": _availability_zone(fields.get("availability_zone")),
            "volume_type_id": _volume_type(s, fields.get("volume_type")),
            "bootable": bool(fields.get("bootable", False)),
            "volume_metadata": fields.get("metadata") or {}})
    VolumeAPI().create_volume(ctx, volume.id)
    return volume


def update(project_id: str | None, volume_id: str, values: dict[str, Any]) -> Volume:
    with session.writer() as s:
        return volumes.update_fields(s, volumes.get_row(s, volume_id, project_id), values)


def delete(ctx: RequestContext, project_id: str | None, volume_id: str) -> None:
    """`deleting` and a cast to the volume's manager; a volume never placed on a backend
    (it failed before) has no data and goes at once, as Cinder's does."""
    with session.writer() as s:
        row = volumes.get_row(s, volume_id, project_id)
        host = row.host
        if not volumes.swap_status(s, volume_id, states.DELETABLE,
                                   {"status": states.DELETING}):
            raise errors.InvalidVolume(reason=_DELETE_REFUSED)
        if host is None:
            volumes.remove(s, volume_id)
    if host is not None:
        VolumeAPI().delete_volume(ctx, host, volume_id)
