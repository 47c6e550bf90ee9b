"""Migrations: the records of resizes and cold migrations, and the instance flavor
changes a move makes (the flavor snapshot's `cur`, `old` and `new`)."""

from __future__ import annotations

import datetime
from collections.abc import Collection, Sequence
from typing import Any

from sqlalchemy import and_, bindparam, or_, select
from sqlalchemy.orm import Session

from novalite import exception, timeutils
from novalite.db import models
from novalite.db.api import instances
from novalite.db.models.migration import Migration as MigrationRow
from novalite.db.session import in_chunks, reader, retry_on_deadlock, writer
from novalite.objects import migration as mig
from novalite.objects.flavor import Flavor
from novalite.objects.instance import Instance
from novalite.objects.migration import Migration

_COLUMNS = ("uuid", "instance_uuid", "migration_type", "status", "source_compute",
            "source_node", "dest_compute", "dest_node", "dest_host", "old_instance_type_id",
            "new_instance_type_id", "hidden", "cross_cell_move", "user_id", "project_id")


def _flavors(s: Session, instance_uuid: str | None) -> dict[str, Any]:
    if instance_uuid is None:
        return {}
    snapshot = s.scalar(select(models.Instance.flavor).filter_by(uuid=instance_uuid)
                        .order_by(models.Instance.deleted)) or {}
    return {key: Flavor.from_fields(snapshot[which]) if snapshot.get(which) else None
            for key, which in (("old_flavor", "old"), ("new_flavor", "new"))}


def _to_obj(s: Session, row: MigrationRow) -> Migration:
    return Migration(id=row.id, created_at=row.created_at, updated_at=row.updated_at,
                     **{c: getattr(row, c) for c in _COLUMNS},
                     **_flavors(s, row.instance_uuid))


def to_view(row: MigrationRow) -> dict[str, Any]:
    """Every column, for the os-migrations views."""
    return {c.key: getattr(row, c.key) for c in MigrationRow.__table__.columns}


@retry_on_deadlock
def migration_create(migration: Migration) -> Migration:
    with writer() as s:
        row = MigrationRow(**{c: getattr(migration, c) for c in _COLUMNS})
        s.add(row)
        s.flush()
        return _to_obj(s, row)


def _row(s: Session, uuid: str, for_update: bool = False) -> MigrationRow:
    query = select(MigrationRow).filter_by(uuid=uuid, deleted=0)
    row = s.scalar(query.with_for_update() if for_update else query)
    if row is None:
        raise exception.NotFound(f"Migration {uuid} could not be found.")
    return row


def migration_get(uuid: str) -> Migration:
    with reader() as s:
        return _to_obj(s, _row(s, uuid))


@retry_on_deadlock
def migration_update(uuid: str, values: dict[str, Any],
                     expected_status: Collection[str] | None = None) -> Migration:
    """With `expected_status`, only from one of those statuses (compare and set), else
    UnexpectedMigrationStatus."""
    with writer() as s:
        row = _row(s, uuid, for_update=expected_status is not None)
        if expected_status is not None and row.status not in expected_status:
            raise exception.UnexpectedMigrationStatus(
                migration_uuid=uuid, expected=list(expected_status), actual=row.status)
        for key, value in values.items():
            setattr(row, key, value)
        row.updated_at = timeutils.utcnow()
        s.flush()
        return _to_obj(s, row)


def migration_get_by_id_and_instance(migration_id: str, instance_uuid: str) -> Migration:
    """By the id the API's paths carry; MigrationNotFoundForInstance as Nova."""
    with reader() as s:
        row = (s.scalar(select(MigrationRow).filter_by(id=int(migration_id),
                                                       instance_uuid=instance_uuid))
               if migration_id.isascii() and migration_id.isdigit()
               and int(migration_id) < 2**31 else None)
        if row is None:
            raise exception.MigrationNotFoundForInstance(migration_id=migration_id,
                                                         instance_id=instance_uuid)
        return _to_obj(s, row)


def migration_get_by_instance_and_status(instance_uuid: str, status: str) -> Migration:
    """The instance's latest migration in `status`; NotFound as Nova's
    MigrationNotFoundByStatus when there is none."""
    with reader() as s:
        row = s.scalar(select(MigrationRow)
                       .filter_by(instance_uuid=instance_uuid, status=status, deleted=0)
                       .order_by(MigrationRow.id.desc()))
        if row is None:
            raise exception.NotFound(f"Migration not found for instance {instance_uuid} "
                                     f"with status {status}.")
        return _to_obj(s, row)


# Built once: every host's periodic resource update asks, and building the expression
# each time was half of the query's cost.
_IN_PROGRESS_BY_HOSTS = select(MigrationRow).where(
    MigrationRow.deleted == 0,
    or_(MigrationRow.status.not_in(mig.DONE),
        and_(MigrationRow.migration_type == mig.EVACUATION,
             MigrationRow.status == mig.DONE_STATUS)),
    or_(MigrationRow.source_compute.in_(bindparam("hosts", expanding=True)),
        MigrationRow.dest_compute.in_(bindparam("hosts", expanding=True))))


def migration_get_in_progress_by_host(host: str) -> list[Migration]:
    """Moves from or to `host` that still hold resources there."""
    return migration_get_in_progress_by_hosts([host]).get(host, [])


def migration_get_in_progress_by_hosts(hosts: Sequence[str]) -> dict[str, list[Migration]]:
    """The moves in progress of each of `hosts` that has any (a move between two of them
    is listed under both), one read per 500 hosts: a compute process starting thousands
    of simulated hosts asks for all of them."""
    found: dict[str, list[Migration]] = {}
    with reader() as s:
        for chunk in in_chunks(hosts):
            wanted = set(chunk)
            for row in s.scalars(_IN_PROGRESS_BY_HOSTS, {"hosts": chunk}):
                move = _to_obj(s, row)
                for host in wanted & {row.source_compute, row.dest_compute}:
                    found.setdefault(host, []).append(move)
    return found


def migration_get_unconfirmed_by_dest_compute(window: int, dest_compute: str
                                              ) -> list[Migration]:
    """Finished moves to `dest_compute` waiting for a confirmation longer than `window`
    seconds (what resize_confirm_window confirms)."""
    cutoff = timeutils.utcnow() - datetime.timedelta(seconds=window)
    with reader() as s:
        rows = s.scalars(select(MigrationRow).where(
            MigrationRow.deleted == 0, MigrationRow.status == mig.FINISHED,
            MigrationRow.dest_compute == dest_compute, MigrationRow.updated_at <= cutoff))
        return [_to_obj(s, r) for r in rows]


def migrations_list(filters: dict[str, Any], limit: int | None = None,
                    marker: str | None = None,
                    changes_since: datetime.datetime | None = None,
                    changes_before: datetime.datetime | None = None) -> list[dict[str, Any]]:
    """Migrations matching `filters` (column: value; `host` matches either end), newest
    first, as views (os-migrations); a marker that names no migration is NotFound."""
    query = select(MigrationRow).where(MigrationRow.deleted == 0)
    for key, value in filters.items():
        if key == "host":
            query = query.where(or_(MigrationRow.source_compute == value,
                                    MigrationRow.dest_compute == value))
        else:
            query = query.where(getattr(MigrationRow, key) == value)
    if changes_since is not None:
        query = query.where(MigrationRow.updated_at >= changes_since)
    if changes_before is not None:
        query = query.where(MigrationRow.updated_at <= changes_before)
    query = query.order_by(MigrationRow.created_at.desc(), MigrationRow.id.desc())
    with reader() as s:
        rows = list(s.scalars(query))
        if marker is not None:
            index = next((i for i, r in enumerate(rows) if r.uuid == marker), None)
            if index is None:
                raise exception.MarkerNotFound(marker=marker)
            rows = rows[index + 1:]
        return [to_view(r) for r in (rows if limit is None else rows[:limit])]


def flavor_values(cur: Flavor, old: Flavor | None, new: Flavor | None) -> dict[str, Any]:
    """The instance columns a flavor change writes: the snapshot and its copies."""
    return {"flavor": {"cur": cur.fields(), "old": old.fields() if old else None,
                       "new": new.fields() if new else None},
            "instance_type_id": cur.id, "vcpus": cur.vcpus, "memory_mb": cur.memory_mb,
            "root_gb": cur.root_gb, "ephemeral_gb": cur.ephemeral_gb}


def instance_update_flavor(instance_uuid: str, values: dict[str, Any],
                           expected_task_state: list[str | None], cur: Flavor,
                           old: Flavor | None, new: Flavor | None) -> Instance:
    """A guarded instance update that also sets the move's flavors."""
    return instances.instance_update(instance_uuid, {**values, **flavor_values(cur, old, new)},
                                     expected_task_state=expected_task_state)
