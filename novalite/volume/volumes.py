"""Volume rows: the SQL behind /volumes and the manager's status changes.

Status changes that race (a delete against a create finishing, two deletes) are
compare-and-swap updates on the status, as Cinder's `conditional_update`: the loser sees
no row changed and answers Cinder's error rather than overwriting the winner."""

from __future__ import annotations

from collections.abc import Iterable
from types import SimpleNamespace
from typing import Any

from sqlalchemy import bindparam, delete, insert, select, update
from sqlalchemy.orm import Session

from novalite.db.models import volume as m
from novalite.db.session import Unit
from novalite.timeutils import utcnow
from novalite.volume import attachments, errors, volume_types
from novalite.volume.records import Attachment, Volume, VolumeType, visible


def record(s: Session, row: m.Volume, attached: list[Attachment] | None = None,
           types: dict[str, VolumeType] | None = None) -> Volume:
    """The volume with its attachments and type (`attached`, `types`: already read, for
    a list)."""
    if attached is None:
        attached = attachments.of_volume(s, row.id)
    volume_type = (volume_types.one(s, row.volume_type_id) if types is None
                   else types.get(row.volume_type_id))
    return _volume(row, volume_type, attached)


def _volume(row: Any, volume_type: VolumeType | None, attached: list[Attachment]) -> Volume:
    """`row`: an ORM row, a Core row of the volumes table's columns, or a new volume's
    columns as attributes."""
    if volume_type is None:
        raise errors.VolumeTypeNotFound(volume_type_id=row.volume_type_id)
    return Volume(
        id=row.id, project_id=row.project_id, user_id=row.user_id, name=row.display_name,
        description=row.display_description, size=row.size, status=row.status,
        availability_zone=row.availability_zone, host=row.host,
        volume_type=volume_type,
        snapshot_id=row.snapshot_id, source_volid=row.source_volid, image_id=row.image_id,
        bootable=row.bootable, metadata=dict(row.volume_metadata or {}),
        created_at=row.created_at, updated_at=row.updated_at, attachments=attached)


# Built once (Session.get builds its select on each call): every step of an attachment
# changes its volume.
_BY_ID = select(m.Volume).where(m.Volume.id == bindparam("id"))
_PLACE = update(m.Volume.__table__).where(m.Volume.id == bindparam("b_id")).values(
    host=bindparam("b_host"))
# A volume whole in one statement, a row per extra spec of its type and attachment: each
# show a client polls, and each step of an attachment, reads it.
_WHOLE = (select(m.Volume.__table__, *volume_types.COLUMNS, *attachments.COLUMNS)
          .outerjoin(m.VolumeType, m.VolumeType.id == m.Volume.volume_type_id)
          .outerjoin(m.VolumeTypeExtraSpec,
                     m.VolumeTypeExtraSpec.volume_type_id == m.VolumeType.id)
          .outerjoin(m.VolumeAttachment, m.VolumeAttachment.volume_id == m.Volume.id)
          .where(m.Volume.id == bindparam("id"))
          .order_by(*attachments.OLDEST_FIRST))


def get_row(s: Session, volume_id: str, project_id: str | None) -> m.Volume:
    """The volume to change, if `project_id` (None: any project, an admin's view) owns
    it."""
    row = s.scalar(_BY_ID, {"id": volume_id})
    if not visible(row, project_id):
        raise errors.VolumeNotFound(volume_id=volume_id)
    return row


_OWNER_AND_HOST = select(m.Volume.project_id, m.Volume.host).where(
    m.Volume.id == bindparam("id"))


def host_of(s: Unit, volume_id: str, project_id: str | None) -> str | None:
    """The backend of the volume (None: not placed yet), if `project_id` (None: any
    project) owns it: what a status change checks before its compare-and-swap."""
    row = s.connection().execute(_OWNER_AND_HOST, {"id": volume_id}).first()
    if not visible(row, project_id):
        raise errors.VolumeNotFound(volume_id=volume_id)
    host: str | None = row.host
    return host


def get(s: Unit, volume_id: str, project_id: str | None) -> Volume:
    """The volume, if `project_id` (None: any project, an admin's view) owns it."""
    rows = s.connection().execute(_WHOLE, {"id": volume_id}).all()
    if not rows or not visible(rows[0], project_id):
        raise errors.VolumeNotFound(volume_id=volume_id)
    first = rows[0]
    attached = {row.attachment_id: attachments.from_row(row, first.project_id)
                for row in rows if row.attachment_id is not None}
    return _volume(first, volume_types.from_rows(rows), list(attached.values()))


def list_volumes(s: Session, project_id: str | None) -> list[Volume]:
    """The project's volumes (None: every project's); the API filters and pages them."""
    stmt = select(m.Volume)
    if project_id is not None:
        stmt = stmt.where(m.Volume.project_id == project_id)
    rows = list(s.scalars(stmt))
    attached = attachments.of_volumes(s, [row.id for row in rows])
    types = volume_types.by_id(s, {row.volume_type_id for row in rows})
    return [record(s, row, attached.get(row.id, []), types) for row in rows]


_ADD = insert(m.Volume.__table__)
# A new volume's columns unless given (the model's defaults)
_UNSET: dict[str, Any] = {**dict.fromkeys(m.Volume.__table__.columns.keys()),
                          "bootable": False, "volume_metadata": {}}


def create(s: Unit, values: dict[str, Any], volume_type: VolumeType | None = None
           ) -> Volume:
    """`values`: the new volume's columns (those left out are unset);
    `volume_type`: the volume's, if the caller read it already."""
    columns = {**_UNSET, **values, "created_at": utcnow()}
    s.connection().execute(_ADD, columns)
    return _volume(SimpleNamespace(**columns),
                   volume_type or volume_types.one(s, columns["volume_type_id"]), [])


def update_fields(s: Session, row: m.Volume, values: dict[str, Any]) -> Volume:
    for key, value in values.items():
        setattr(row, key, value)
    s.flush()
    return record(s, row)


# Built once, run on the session's connection (an ORM update evaluates its criteria
# against the session's objects too): their SET clause is the values of each run.
_SWAP = update(m.Volume.__table__).where(
    m.Volume.id == bindparam("b_id"), m.Volume.status.in_(bindparam("b_expected",
                                                                    expanding=True)))
_REMOVE = delete(m.Volume.__table__).where(m.Volume.id == bindparam("b_id"))


def swap_status(s: Unit, volume_id: str, expected: Iterable[str],
                values: dict[str, Any]) -> bool:
    """Set `values` if the volume's status is one of `expected`; whether it was. The
    caller's volume rows of the session keep the values they had."""
    result = s.connection().execute(_SWAP, {**values, "b_id": volume_id,
                                            "b_expected": list(expected)})
    return bool(result.rowcount)


def place(s: Unit, volume_id: str, host: str) -> None:
    """The volume is on backend `host` from now on."""
    s.connection().execute(_PLACE, {"b_id": volume_id, "b_host": host})


def remove(s: Unit, volume_id: str) -> None:
    s.connection().execute(_REMOVE, {"b_id": volume_id})


def on_host(s: Session, host: str, statuses: Iterable[str]) -> list[m.Volume]:
    return list(s.scalars(select(m.Volume).where(m.Volume.host == host,
                                                  m.Volume.status.in_(tuple(statuses)))))
