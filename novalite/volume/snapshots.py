"""Snapshot rows: the SQL behind /snapshots and the manager's status changes.

A snapshot is a full copy of its volume's data at the time it was taken (a qcow2 file of
its own, see backend.py), not a backing file the volume keeps writing over: it outlives
nothing and needs nothing of its volume, and a volume created from it is another copy."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy import bindparam, func, select, update
from sqlalchemy.orm import Session

from novalite.db.models import volume as m
from novalite.db.session import Unit
from novalite.volume import errors
from novalite.volume.records import Snapshot, visible

CREATING = "creating"
AVAILABLE = "available"
DELETING = "deleting"
ERROR = "error"
ERROR_DELETING = "error_deleting"
DELETABLE = (AVAILABLE, ERROR)
# what a manager killed in the middle leaves, and what its successor makes of it
INTERRUPTED = {CREATING: ERROR, DELETING: ERROR_DELETING}
# Cinder's os-update_snapshot_status: whoever takes or removes a snapshot outside the
# volume service (Nova, for an assisted snapshot) reports on it only while it is being
# made or removed, and only with these statuses
REPORTABLE = {CREATING: (CREATING, AVAILABLE, ERROR), DELETING: (DELETING, ERROR_DELETING)}


def record(row: Any) -> Snapshot:
    """`row`: an ORM row or a Core row of the snapshots table's columns."""
    return Snapshot(id=row.id, project_id=row.project_id, user_id=row.user_id,
                    volume_id=row.volume_id, volume_size=row.volume_size, status=row.status,
                    name=row.display_name, description=row.display_description,
                    metadata=dict(row.snapshot_metadata or {}), created_at=row.created_at,
                    updated_at=row.updated_at, progress=row.progress)


_ONE = select(m.Snapshot.__table__).where(m.Snapshot.id == bindparam("id"))


def get(s: Unit, snapshot_id: str, project_id: str | None) -> Snapshot:
    """The snapshot, if `project_id` (None: any project) owns it."""
    row = s.connection().execute(_ONE, {"id": snapshot_id}).first()
    if not visible(row, project_id):
        raise errors.SnapshotNotFound(snapshot_id=snapshot_id)
    return record(row)


def get_row(s: Session, snapshot_id: str, project_id: str | None) -> m.Snapshot:
    row = s.get(m.Snapshot, snapshot_id)
    if not visible(row, project_id):
        raise errors.SnapshotNotFound(snapshot_id=snapshot_id)
    return row


def list_snapshots(s: Session, project_id: str | None) -> list[Snapshot]:
    stmt = select(m.Snapshot)
    if project_id is not None:
        stmt = stmt.where(m.Snapshot.project_id == project_id)
    return [record(row) for row in s.scalars(stmt)]


def create(s: Session, values: dict[str, Any]) -> Snapshot:
    row = m.Snapshot(**values)
    s.add(row)
    s.flush()
    return record(row)


def remove(s: Session, snapshot_id: str) -> None:
    row = s.get(m.Snapshot, snapshot_id)
    if row is not None:
        s.delete(row)


def update_fields(s: Session, row: m.Snapshot, values: dict[str, Any]) -> Snapshot:
    for key, value in values.items():
        setattr(row, key, value)
    s.flush()
    return record(row)


def swap_status(s: Session, snapshot_id: str, expected: Iterable[str],
                values: dict[str, Any]) -> bool:
    result = s.execute(update(m.Snapshot).where(m.Snapshot.id == snapshot_id,
                                                m.Snapshot.status.in_(tuple(expected)))
                       .values(**values))
    return bool(result.rowcount)  # type: ignore[attr-defined]


_COUNT_OF_VOLUME = (select(func.count()).select_from(m.Snapshot)
                    .where(m.Snapshot.volume_id == bindparam("volume_id")))


def of_volume(s: Unit, volume_id: str) -> int:
    return int(s.connection().scalar(_COUNT_OF_VOLUME, {"volume_id": volume_id}) or 0)


def interrupted_on(s: Session, volume_host: str) -> list[m.Snapshot]:
    """The snapshots of volumes on `volume_host` left creating or deleting."""
    return list(s.scalars(select(m.Snapshot)
                          .join(m.Volume, m.Volume.id == m.Snapshot.volume_id)
                          .where(m.Volume.host == volume_host,
                                 m.Snapshot.status.in_(tuple(INTERRUPTED)))))



