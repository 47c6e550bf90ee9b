"""What the volume API does for a request beyond HTTP (Cinder's cinder/volume/api.py):
check it against the state of the volume or snapshot and the project's quotas, record
it, and cast the slow part to the volume manager that holds the data. The caller's
project scopes every lookup (None: an admin's view of all)."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from sqlalchemy.orm import Session

from novalite import exception
from novalite.clients import glance
from novalite.conf import CONF
from novalite.context import RequestContext
from novalite.db import session
from novalite.db.session import Unit
from novalite.volume import errors, quotas, snapshots, states, volume_types, volumes
from novalite.volume.backend import GiB
from novalite.volume.records import Snapshot, Volume
from novalite.volume.rpcapi import VolumeAPI

_DELETE_REFUSED = (
    "Volume status must be {} and must not be migrating, attached, belong to a group, have "
    "snapshots, awaiting a transfer, or be disassociated from snapshots after volume "
    "transfer.").format(" or ".join(states.DELETABLE))
_SOURCE_VOLUME_STATUSES = (states.AVAILABLE, "in-use")


def _availability_zone(requested: str | None) -> str:
    """The one zone this service offers (Cinder answers the same for an unknown zone)."""
    zone: str = CONF.storage_availability_zone
    if requested is not None and requested != zone:
        raise errors.InvalidInput(reason=f"Availability zone '{requested}' is invalid.")
    return zone


def _originating(status: str, allowed: tuple[str, ...], what: str) -> str:
    if status not in allowed:
        return (f"Originating {what} status must be one of '{', '.join(allowed)}' values")
    return ""


def _source(s: Unit, project_id: str, fields: dict[str, Any]
            ) -> tuple[dict[str, Any], int | None, str | None]:
    """The columns a volume copied from a snapshot or volume takes from it, the size it
    must at least have, and the host that holds the source's data."""
    if fields.get("snapshot_id"):
        snap = snapshots.get(s, fields["snapshot_id"], project_id)
        refused = _originating(snap.status, (snapshots.AVAILABLE,), "snapshot")
        if refused:
            raise errors.InvalidSnapshot(reason=refused)
        origin = volumes.get(s, snap.volume_id, None)
        return ({"snapshot_id": snap.id, "volume_type_id": origin.volume_type.id,
                 "bootable": origin.bootable}, snap.volume_size, origin.host)
    if fields.get("source_volid"):
        origin = volumes.get(s, fields["source_volid"], project_id)
        refused = _originating(origin.status, _SOURCE_VOLUME_STATUSES, "source volume")
        if refused:
            raise errors.InvalidVolume(reason=refused)
        return ({"source_volid": origin.id, "volume_type_id": origin.volume_type.id,
                 "bootable": origin.bootable}, origin.size, origin.host)
    return {}, None, None


# what qemu-img converts into a volume, by the image's disk_format
IMAGE_FORMATS = ("raw", "qcow2")


def _image(ctx: RequestContext, image_id: str, size: int) -> dict[str, Any]:
    """The columns of a volume written from the image, after Cinder's checks of it (its
    virtual size is checked by the manager, which has the data)."""
    try:
        image = glance.show(ctx, image_id)
    except exception.ImageNotFound:
        raise errors.InvalidInput(reason="Invalid image identifier or unable to access "
                                         "requested image.") from None
    if image.get("status") != "active":
        raise errors.InvalidInput(reason=f"Image {image_id} is not active.")
    if image.get("disk_format") not in IMAGE_FORMATS:
        raise errors.InvalidInput(reason=(
            f"Image {image_id} has disk format {image.get('disk_format')}; novalite writes "
            f"{' or '.join(IMAGE_FORMATS)} images into volumes."))
    image_gb = -(-int(image.get("size") or 0) // GiB)
    if image_gb > size:
        raise errors.InvalidInput(reason=(
            f"Size of specified image {image_gb}GB is larger than volume size {size}GB."))
    if int(image.get("min_disk") or 0) > size:
        raise errors.InvalidInput(reason=(
            f"Volume size {size}GB cannot be smaller than the image minDisk size "
            f"{image['min_disk']}GB."))
    return {"image_id": image_id, "bootable": True}


def _size(requested: int | None, minimum: int | None, from_snapshot: bool) -> int:
    size = requested if requested is not None else minimum
    if size is None:
        raise errors.InvalidInput(reason=(
            "Invalid volume size provided for create request: None (size argument must be "
            "an integer (or string representation of an integer) and greater than zero)."))
    if minimum is not None and size < minimum:
        raise errors.InvalidInput(reason=(
            f"Volume size '{size}'GB cannot be smaller than the snapshot size {minimum}GB. "
            "They must be >= original snapshot size." if from_snapshot else
            f"Volume size '{size}'GB cannot be smaller than original volume size  "
            f"{minimum}GB. They must be >= original volume size."))
    return size


def create(ctx: RequestContext, requested_size: int | None, fields: dict[str, Any],
           authorize: Callable[[str], None]) -> Volume:
    """Record the volume `creating` and cast its creation; `fields` holds name,
    description, metadata, volume_type, availability_zone, bootable and one source
    (snapshot_id, source_volid or image_id), all optional. A volume of a multiattach
    type needs the caller `authorize`d for Cinder's volume:multiattach."""
    project_id = ctx.require_project_id()
    # the image service is asked before the transaction: no lock is held over HTTP
    from_image = (_image(ctx, fields["image_id"], _size(requested_size, None, False))
                  if fields.get("image_id") else {})
    with session.core_writer() as s:
        copied, minimum, source_host = _source(s, project_id, fields)
        size = _size(requested_size, minimum, bool(fields.get("snapshot_id")))
        copied.update(from_image)
        quotas.check(s, project_id, volumes=1, gigabytes=size)
        values = {
            "id": str(uuid.uuid4()), "project_id": project_id,
            "user_id": ctx.user_id, "display_name": fields.get("name"),
            "display_description": fields.get("description"), "size": size,
            "status": states.CREATING,
            "availability_zone": _availability_zone(fields.get("availability_zone")),
            "volume_metadata": fields.get("metadata") or {},
            "bootable": bool(fields.get("bootable", False)), **copied}
        volume_type = None
        if fields.get("volume_type") or "volume_type_id" not in values:
            volume_type = (volume_types.find(s, fields["volume_type"])
                           if fields.get("volume_type") else volume_types.default(s))
            values["volume_type_id"] = volume_type.id
        volume = volumes.create(s, values, volume_type)
        if volume.multiattach:
            authorize("volume:multiattach")  # a refusal rolls the volume back
    _recheck(project_id, lambda s: volumes.remove(s, volume.id), volumes=1, gigabytes=size)
    VolumeAPI().create_volume(ctx, volume.id, source_host)
    return volume


def _recheck(project_id: str, undo: Callable[[Session], None], **adding: int) -> None:
    """The quota recheck once the addition committed (see novalite.volume.quotas): an
    addition that a racing one pushed over a limit is undone and refused. Where writes
    are serialised no racer could count before the addition's insert: the check made
    in its transaction stands, and no recheck is needed."""
    if session.writes_serialised():
        return
    with session.reader() as s:
        try:
            quotas.recheck(s, project_id, **adding)
            return
        except errors.QuotaError as exc:
            refused = exc
    with session.writer() as s:
        undo(s)
    raise refused


def update(project_id: str | None, volume_id: str, values: dict[str, Any]) -> Volume:
    with session.writer() as s:
        return volumes.update_fields(s, volumes.get_row(s, volume_id, project_id), values)


def delete(ctx: RequestContext, project_id: str | None, volume_id: str) -> None:
    """`deleting` and a cast to the volume's manager; a volume never placed on a backend
    (it failed before) has no data and goes at once, as Cinder's does."""
    with session.core_writer() as s:
        host = volumes.host_of(s, volume_id, project_id)
        if snapshots.of_volume(s, volume_id) or not volumes.swap_status(
                s, volume_id, states.DELETABLE, {"status": states.DELETING}):
            raise errors.InvalidVolume(reason=_DELETE_REFUSED)
        if host is None:
            volumes.remove(s, volume_id)
    if host is not None:
        VolumeAPI().delete_volume(ctx, host, volume_id)


def extend(ctx: RequestContext, project_id: str | None, volume_id: str,
           new_size: int, in_use: bool = False) -> None:
    """`extending` and a cast to the volume's manager; an attached volume too when
    `in_use` (3.42: the manager then has its servers' computes grow their disks)."""
    allowed = [states.AVAILABLE, states.IN_USE] if in_use else [states.AVAILABLE]
    with session.writer() as s:
        volume = volumes.get(s, volume_id, project_id)
        if new_size <= volume.size:
            raise errors.InvalidInput(reason=(
                f"New size for extend must be greater than current size. (current: "
                f"{volume.size}, extended: {new_size})."))
        quotas.check(s, volume.project_id, gigabytes=new_size - volume.size)
        if volume.host is None or not volumes.swap_status(
                s, volume_id, allowed, {"status": states.EXTENDING}):
            raise errors.InvalidVolume(reason=(
                f"Volume {volume_id} status must be "
                f"{' or '.join(repr(status) for status in allowed)} to extend, currently "
                f"{volume.status}."))
    VolumeAPI().extend_volume(ctx, volume.host, volume_id, new_size)


def create_snapshot(ctx: RequestContext, project_id: str | None, volume_id: str,
                    fields: dict[str, Any]) -> Snapshot:
    with session.writer() as s:
        volume = volumes.get(s, volume_id, project_id)
        allowed = (states.AVAILABLE, "in-use") if fields.get("force") else (states.AVAILABLE,)
        if volume.status not in allowed or volume.host is None:
            raise errors.InvalidVolume(reason=(
                f"Volume {volume_id} status must be {' or '.join(allowed)}, but current "
                f"status is: {volume.status}."))
        quotas.check(s, volume.project_id, snapshots=1, gigabytes=volume.size)
        snapshot = snapshots.create(s, {
            "id": str(uuid.uuid4()), "project_id": volume.project_id, "user_id": ctx.user_id,
            "volume_id": volume_id, "volume_size": volume.size,
            "status": snapshots.CREATING, "display_name": fields.get("name"),
            "display_description": fields.get("description"),
            "snapshot_metadata": fields.get("metadata") or {}})
    _recheck(volume.project_id, lambda s: snapshots.remove(s, snapshot.id), snapshots=1,
             gigabytes=volume.size)
    VolumeAPI().create_snapshot(ctx, volume.host, snapshot.id)
    return snapshot


def delete_snapshot(ctx: RequestContext, project_id: str | None, snapshot_id: str) -> None:
    with session.writer() as s:
        row = snapshots.get_row(s, snapshot_id, project_id)
        host = volumes.get(s, row.volume_id, None).host
        if not snapshots.swap_status(s, snapshot_id, snapshots.DELETABLE,
                                     {"status": snapshots.DELETING}):
            raise errors.InvalidSnapshot(reason=(
                "Volume Snapshot status must be available or error and must not be part "
                "of a group."))
    assert host is not None  # a snapshot is only taken of a volume placed on a backend
    VolumeAPI().delete_snapshot(ctx, host, snapshot_id)


def update_snapshot(project_id: str | None, snapshot_id: str,
                    values: dict[str, Any]) -> Snapshot:
    with session.writer() as s:
        return snapshots.update_fields(s, snapshots.get_row(s, snapshot_id, project_id),
                                       values)


def update_snapshot_status(project_id: str | None, snapshot_id: str, status: str,
                           progress: str | None) -> None:
    """Cinder's os-update_snapshot_status: the report of whoever takes the snapshot
    outside the volume service, taken only while the snapshot is being made or removed
    and only as a step of that (snapshots.REPORTABLE); compared and set at once, so a
    report racing the manager's own change of status is refused, not lost."""
    with session.writer() as s:
        current = snapshots.get_row(s, snapshot_id, project_id).status
        if current not in snapshots.REPORTABLE:
            raise errors.SnapshotStatusNotReportable(current=current)
        if status not in snapshots.REPORTABLE[current]:
            raise errors.SnapshotStatusRefused(provided=status, current=current)
        values = {"status": status, **({"progress": progress} if progress else {})}
        if not snapshots.swap_status(s, snapshot_id, [current], values):
            raise errors.SnapshotStatusNotReportable(
                current=snapshots.get_row(s, snapshot_id, project_id).status)
