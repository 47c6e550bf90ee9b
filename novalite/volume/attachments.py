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
from typing import Any

from sqlalchemy import bindparam, delete, insert, select, update
from sqlalchemy.orm import Session

from novalite.db.models import volume as m
from novalite.db.session import Unit
from novalite.volume import errors, states
from novalite.volume.records import Attachment, visible

RESERVED = "reserved"
ATTACHING = "attaching"
ATTACHED = "attached"
DETACHING = "detaching"
# an attach status that is not a volume status of the same name
_VOLUME_STATUS = {ATTACHED: states.IN_USE}


_TABLE = m.VolumeAttachment.__table__
# An attachment's columns under names of their own, so that a volume's read can join
# them to its own row (novalite.volume.volumes); its services read records, not ORM rows.
COLUMNS = tuple(column.label(f"attachment_{column.name}") for column in _TABLE.c)


def from_row(row: Any, project_id: str) -> Attachment:
    """The attachment in a row of COLUMNS."""
    return Attachment(id=row.attachment_id, volume_id=row.attachment_volume_id,
                      project_id=project_id, instance_uuid=row.attachment_instance_uuid,
                      status=row.attachment_attach_status,
                      attached_host=row.attachment_attached_host,
                      mountpoint=row.attachment_mountpoint,
                      attach_mode=row.attachment_attach_mode,
                      attach_time=row.attachment_attach_time,
                      connector=row.attachment_connector,
                      connection_info=row.attachment_connection_info,
                      created_at=row.attachment_created_at)


_ON_VOLUME = m.Volume.id == m.VolumeAttachment.volume_id
_WITH_PROJECT = select(*COLUMNS, m.Volume.project_id).join(m.Volume, _ON_VOLUME)
# Built once: every volume shown, and every step of an attachment, reads with these.
_BY_ID = _WITH_PROJECT.where(m.VolumeAttachment.id == bindparam("id"))
_INSERT = insert(_TABLE)
# its SET clause is the values given with each run
_CHANGE = update(_TABLE).where(_TABLE.c.id == bindparam("b_id"))
OLDEST_FIRST = (m.VolumeAttachment.created_at, m.VolumeAttachment.id)
_OF_VOLUMES = (_WITH_PROJECT
               .where(m.VolumeAttachment.volume_id.in_(bindparam("ids", expanding=True)))
               .order_by(*OLDEST_FIRST))
# One volume's: an expanding IN is rendered again on each call, a fifth of a volume show.
_OF_VOLUME = (_WITH_PROJECT.where(m.VolumeAttachment.volume_id == bindparam("id"))
              .order_by(*OLDEST_FIRST))
_STATUSES = select(m.VolumeAttachment.attach_status).where(
    m.VolumeAttachment.volume_id == bindparam("volume_id"))
_SET_STATUS = update(m.Volume.__table__).where(m.Volume.id == bindparam("volume_id")).values(
    status=bindparam("status"))
_REMOVE = delete(_TABLE).where(_TABLE.c.id == bindparam("id"))


def _not_found(attachment_id: str) -> errors.VolumeAttachmentNotFound:
    return errors.VolumeAttachmentNotFound(filter=f"attachment_id = {attachment_id}")


def split(attached: list[Attachment], attachment_id: str
          ) -> tuple[Attachment, list[Attachment]]:
    """The attachment `attachment_id` among a volume's `attached`, and the others."""
    this = next((a for a in attached if a.id == attachment_id), None)
    if this is None:
        raise _not_found(attachment_id)
    return this, [other for other in attached if other.id != attachment_id]


def get(s: Unit, attachment_id: str, project_id: str | None) -> Attachment:
    found = s.connection().execute(_BY_ID, {"id": attachment_id}).first()
    if not visible(found, project_id):
        raise _not_found(attachment_id)
    return from_row(found, found.project_id)


def list_attachments(s: Session, project_id: str | None) -> list[Attachment]:
    """The project's attachments (None: every project's); the API filters and pages."""
    query = _WITH_PROJECT
    if project_id is not None:
        query = query.where(m.Volume.project_id == project_id)
    return [from_row(row, row.project_id) for row in s.connection().execute(query)]


def of_volumes(s: Session, volume_ids: Iterable[str]) -> dict[str, list[Attachment]]:
    """The attachments of each of `volume_ids`, oldest first."""
    found: dict[str, list[Attachment]] = {}
    for row in s.connection().execute(_OF_VOLUMES, {"ids": list(volume_ids)}):
        found.setdefault(row.attachment_volume_id, []).append(from_row(row, row.project_id))
    return found


def of_volume(s: Unit, volume_id: str) -> list[Attachment]:
    """The volume's attachments, oldest first."""
    return [from_row(row, row.project_id)
            for row in s.connection().execute(_OF_VOLUME, {"id": volume_id})]


def create(s: Unit, volume_id: str, instance_uuid: str | None, mode: str) -> str:
    attachment_id = str(uuid.uuid4())
    s.connection().execute(_INSERT, {"id": attachment_id, "volume_id": volume_id,
                                     "instance_uuid": instance_uuid,
                                     "attach_status": RESERVED, "attach_mode": mode})
    return attachment_id


def change(s: Unit, attachment_id: str, values: dict[str, Any]) -> None:
    """Set the attachment's `values` (columns by name)."""
    if not s.connection().execute(_CHANGE, {**values, "b_id": attachment_id}).rowcount:
        raise _not_found(attachment_id)


def remove(s: Unit, attachment_id: str) -> None:
    s.connection().execute(_REMOVE, {"id": attachment_id})


def on_backend(s: Session, backend_host: str) -> list[m.VolumeAttachment]:
    """The attachments of the volumes a backend holds (what its manager exports)."""
    return list(s.scalars(select(m.VolumeAttachment)
                          .join(m.Volume, m.Volume.id == m.VolumeAttachment.volume_id)
                          .where(m.Volume.host == backend_host)))


def settle(s: Unit, volume_id: str) -> str:
    """Give the volume the status its attachments make (Cinder's rule, see above), with
    the caller's changes to them written first (a Session's pending ones flushed). The
    caller's volume rows of a session keep the status they had."""
    if isinstance(s, Session):
        s.flush()
    conn = s.connection()
    statuses = sorted(conn.scalars(_STATUSES, {"volume_id": volume_id}))
    status = _VOLUME_STATUS.get(statuses[0], statuses[0]) if statuses else states.AVAILABLE
    conn.execute(_SET_STATUS, {"volume_id": volume_id, "status": status})
    return status
