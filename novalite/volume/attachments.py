"""Attachment rows (Cinder's volume_attachment): the SQL behind /attachments, and the
status a volume takes from its attachments.

An attachment is `reserved` when made without a connector (Nova's API reserving the
volume for a server), `attaching` once the volume manager exported the volume to the
consumer's connector, `attached` when the consumer completed it, and `detaching` while
it is being deleted. A volume's status follows its attachments as Cinder's
`_get_statuses_from_attachments` decides it: the alphabetically first attach status of
attached, attaching, detaching, reserved (`in-use` for attached), `available` when none
is left."""

from __future__ import annotations

import uuid
from collections.abc import Iterable

from sqlalchemy import bindparam, delete, select
from sqlalchemy.orm import Session

from novalite.db.models import volume as m
from novalite.volume import errors, states
from novalite.volume.records import Attachment

RESERVED = "reserved"
ATTACHING = "attaching"
ATTACHED = "attached"
DETACHING = "detaching"
# an attach status that is not a volume status of the same name
_VOLUME_STATUS = {ATTACHED: states.IN_USE}


def record(row: m.VolumeAttachment, project_id: str) -> Attachment:
    return Attachment(id=row.id, volume_id=row.volume_id, project_id=project_id,
                      instance_uuid=row.instance_uuid, status=row.attach_status,
                      attached_host=row.attached_host, mountpoint=row.mountpoint,
                      attach_mode=row.attach_mode, attach_time=row.attach_time,
                      connector=row.connector, connection_info=row.connection_info,
                      created_at=row.created_at)


_WITH_PROJECT = select(m.VolumeAttachment, m.Volume.project_id).join(
    m.Volume, m.Volume.id == m.VolumeAttachment.volume_id)
# Built once: every volume shown, and every step of an attachment, reads with these.
_BY_ID = _WITH_PROJECT.where(m.VolumeAttachment.id == bindparam("id"))
_OLDEST_FIRST = (m.VolumeAttachment.created_at, m.VolumeAttachment.id)
_OF_VOLUMES = (_WITH_PROJECT
               .where(m.VolumeAttachment.volume_id.in_(bindparam("ids", expanding=True)))
               .order_by(*_OLDEST_FIRST))
# One volume's: an expanding IN is rendered again on each call, a fifth of a volume show.
_OF_VOLUME = (_WITH_PROJECT.where(m.VolumeAttachment.volume_id == bindparam("id"))
              .order_by(*_OLDEST_FIRST))
_STATUSES = select(m.VolumeAttachment.attach_status).where(
    m.VolumeAttachment.volume_id == bindparam("volume_id"))


def get_row(s: Session, attachment_id: str, project_id: str | None
            ) -> tuple[m.VolumeAttachment, str]:
    """The attachment and its volume's project, if `project_id` (None: any) owns it."""
    found = s.execute(_BY_ID, {"id": attachment_id}).first()
    if found is None or (project_id is not None and found[1] != project_id):
        raise errors.VolumeAttachmentNotFound(filter=f"attachment_id = {attachment_id}")
    return found[0], found[1]


def get(s: Session, attachment_id: str, project_id: str | None) -> Attachment:
    return record(*get_row(s, attachment_id, project_id))


def list_attachments(s: Session, project_id: str | None) -> list[Attachment]:
    """The project's attachments (None: every project's); the API filters and pages."""
    query = _WITH_PROJECT
    if project_id is not None:
        query = query.where(m.Volume.project_id == project_id)
    return [record(row, project) for row, project in s.execute(query)]


def of_volumes(s: Session, volume_ids: Iterable[str]) -> dict[str, list[Attachment]]:
    """The attachments of each of `volume_ids`, oldest first."""
    found: dict[str, list[Attachment]] = {}
    for row, project in s.execute(_OF_VOLUMES, {"ids": list(volume_ids)}):
        found.setdefault(row.volume_id, []).append(record(row, project))
    return found


def of_volume(s: Session, volume_id: str) -> list[Attachment]:
    """The volume's attachments, oldest first."""
    return [record(row, project) for row, project in s.execute(_OF_VOLUME, {"id": volume_id})]


def create(s: Session, volume_id: str, instance_uuid: str | None, mode: str) -> str:
    row = m.VolumeAttachment(id=str(uuid.uuid4()), volume_id=volume_id,
                             instance_uuid=instance_uuid, attach_status=RESERVED,
                             attach_mode=mode)
    s.add(row)
    s.flush()
    return row.id


def remove(s: Session, attachment_id: str) -> None:
    s.execute(delete(m.VolumeAttachment).where(m.VolumeAttachment.id == attachment_id))


def on_backend(s: Session, backend_host: str) -> list[m.VolumeAttachment]:
    """The attachments of the volumes a backend holds (what its manager exports)."""
    return list(s.scalars(select(m.VolumeAttachment)
                          .join(m.Volume, m.Volume.id == m.VolumeAttachment.volume_id)
                          .where(m.Volume.host == backend_host)))


def settle(s: Session, volume_id: str) -> str:
    """Give the volume the status its attachments make (Cinder's rule, see above)."""
    statuses = sorted(s.scalars(_STATUSES, {"volume_id": volume_id}))
    status = _VOLUME_STATUS.get(statuses[0], statuses[0]) if statuses else states.AVAILABLE
    volume = s.get(m.Volume, volume_id)
    if volume is not None:
        volume.status = status
    return status
