"""Host aggregates: named groups of hosts with metadata (availability zones among them).

Writers lock the aggregate's row, and the service rows of the hosts whose zone they may
change, before calling the caller's `guard`: the guard reads a `Snapshot` of what it
decides on (the hosts' zoned aggregates, their instances) and raises to refuse, and its
verdict still holds when the change commits. Duplicates (a name, a host in an aggregate)
are left to the unique constraints.
"""

from __future__ import annotations

import uuid as uuidlib
from collections.abc import Callable, Iterable

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from novalite import exception, timeutils
from novalite.db import models
from novalite.db.session import core_reader, reader, retry_on_deadlock, writer
from novalite.objects.aggregate import AZ_KEY, Aggregate


def _to_object(row: models.Aggregate) -> Aggregate:
    return Aggregate(id=row.id, uuid=row.uuid, name=row.name,
                     hosts=sorted(h.host for h in row.hosts),
                     metadata={m.key: m.value for m in row.metadata_items},
                     created_at=row.created_at, updated_at=row.updated_at)


class Snapshot:
    """What a guard may read, inside the transaction about to change `aggregate`."""

    def __init__(self, session: Session, row: models.Aggregate) -> None:
        self._s = session
        self.aggregate = _to_object(row)

    def zoned_aggregates(self, hosts: Iterable[str]) -> list[Aggregate]:
        """The aggregates with an availability zone holding any of `hosts`."""
        member = select(models.AggregateHost.aggregate_id).where(
            models.AggregateHost.host.in_(sorted(hosts)))
        query = select(models.Aggregate).where(
            models.Aggregate.id.in_(member),
            models.Aggregate.metadata_items.any(models.AggregateMetadata.key == AZ_KEY))
        return [_to_object(r) for r in self._s.scalars(query.order_by(models.Aggregate.id))]

    def instance_count(self, hosts: Iterable[str]) -> int:
        """Live instances on `hosts`."""
        return self._s.scalar(select(func.count()).select_from(models.Instance).where(
            models.Instance.host.in_(sorted(hosts)), models.Instance.deleted == 0)) or 0


Guard = Callable[[Snapshot], None]


def _stored(s: Session, row: models.Aggregate) -> Aggregate:
    """The row as the database keeps it (MariaDB drops the microseconds)."""
    s.flush()
    s.refresh(row)
    return _to_object(row)


def _locked(s: Session, aggregate_id: int, hosts: Iterable[str] = ()) -> models.Aggregate:
    """The aggregate's row, locked with the services of its hosts and of `hosts`
    (SQLite's writers are serialised already; FOR UPDATE is for the server databases).
    On MariaDB the transaction reads committed rows, as on PostgreSQL: under its default
    REPEATABLE READ, a request that waited for a lock would still read what was there
    before the request it waited for."""
    if s.get_bind().dialect.name == "mysql":
        s.connection(execution_options={"isolation_level": "READ COMMITTED"})
    row = s.scalar(select(models.Aggregate).where(models.Aggregate.id == aggregate_id)
                   .with_for_update())
    if row is None:
        raise exception.AggregateNotFound(aggregate_id=aggregate_id)
    names = sorted({h.host for h in row.hosts} | set(hosts))
    if names:
        s.execute(select(models.Service.id).where(
            models.Service.host.in_(names), models.Service.deleted == 0)
            .order_by(models.Service.id).with_for_update())
    return row


@retry_on_deadlock
def aggregate_create(name: str, metadata: dict[str, str] | None = None,
                     hosts: list[str] | None = None, uuid: str | None = None) -> Aggregate:
    with writer() as s:
        row = models.Aggregate(
            uuid=uuid or str(uuidlib.uuid4()), name=name,
            metadata_items=[models.AggregateMetadata(key=k, value=v)
                            for k, v in (metadata or {}).items()],
            hosts=[models.AggregateHost(host=h) for h in hosts or []])
        s.add(row)
        try:
            s.flush()
        except IntegrityError:
            raise exception.AggregateNameExists(aggregate_name=name) from None
        return _stored(s, row)


def aggregate_get(aggregate_id: int) -> Aggregate:
    with reader() as s:
        row = s.get(models.Aggregate, aggregate_id)
        if row is None:
            raise exception.AggregateNotFound(aggregate_id=aggregate_id)
        return _to_object(row)


def aggregate_get_all() -> list[Aggregate]:
    with reader() as s:
        return [_to_object(r) for r in s.scalars(select(models.Aggregate)
                                               .order_by(models.Aggregate.id))]


def _set_metadata(s: Session, row: models.Aggregate, metadata: dict[str, str | None]) -> None:
    """Set each key; a None value deletes the key (absent keys are no error)."""
    items = {m.key: m for m in row.metadata_items}
    for key, value in metadata.items():
        if value is None:
            if key in items:
                row.metadata_items.remove(items.pop(key))
        elif key in items:
            items[key].value = value
        else:
            row.metadata_items.append(models.AggregateMetadata(key=key, value=value))
            try:
                s.flush()
            except IntegrityError:  # a case-insensitive collation (MariaDB) saw the key
                raise exception.AggregateMetadataKeyExists(aggregate_id=row.id,
                                                           key=key) from None


@retry_on_deadlock
def aggregate_update(aggregate_id: int, name: str | None = None,
                     metadata: dict[str, str | None] | None = None,
                     guard: Guard | None = None) -> Aggregate:
    """Rename and/or change metadata (None values delete keys), stamping updated_at."""
    with writer() as s:
        row = _locked(s, aggregate_id)
        if guard:
            guard(Snapshot(s, row))
        if name is not None and name != row.name:
            row.name = name
            try:
                s.flush()
            except IntegrityError:
                raise exception.AggregateNameExists(aggregate_name=name) from None
        _set_metadata(s, row, metadata or {})
        row.updated_at = timeutils.utcnow()
        return _stored(s, row)


@retry_on_deadlock
def aggregate_delete(aggregate_id: int) -> None:
    """Delete an aggregate that holds no host (with its metadata)."""
    with writer() as s:
        row = _locked(s, aggregate_id)
        if row.hosts:
            raise exception.InvalidAggregateActionDelete(
                aggregate_id=aggregate_id, reason="Host aggregate is not empty")
        s.delete(row)


@retry_on_deadlock
def aggregate_add_host(aggregate_id: int, host: str,
                       guard: Guard | None = None) -> Aggregate:
    with writer() as s:
        row = _locked(s, aggregate_id, [host])
        if guard:
            guard(Snapshot(s, row))
        row.hosts.append(models.AggregateHost(host=host))
        try:
            s.flush()
        except IntegrityError:
            raise exception.AggregateHostExists(aggregate_id=aggregate_id,
                                                host=host) from None
        return _stored(s, row)


@retry_on_deadlock
def aggregate_remove_host(aggregate_id: int, host: str,
                          guard: Guard | None = None) -> Aggregate:
    with writer() as s:
        row = _locked(s, aggregate_id)
        if guard:
            guard(Snapshot(s, row))
        member = next((h for h in row.hosts if h.host == host), None)
        if member is None:
            raise exception.AggregateHostNotFound(aggregate_id=aggregate_id, host=host)
        row.hosts.remove(member)
        return _stored(s, row)


def aggregates_by_host() -> dict[str, list[Aggregate]]:
    """Each host's aggregates with their metadata, for the scheduler's host states."""
    by_host: dict[str, list[Aggregate]] = {}
    for aggregate in aggregate_get_all():
        for host in aggregate.hosts:
            by_host.setdefault(host, []).append(aggregate)
    return by_host


# One statement, built once: every scheduling decision asks for the marker.
_MARKER = select(*(select(aggregate).scalar_subquery()
                   for table in (models.Aggregate, models.AggregateHost,
                                 models.AggregateMetadata)
                   for aggregate in (func.count(table.id), func.max(table.id),
                                     func.max(table.created_at),
                                     func.max(table.updated_at))))


def aggregates_marker() -> tuple:
    """Changes whenever an aggregate, its hosts or its metadata change (row counts, the
    newest id and the newest timestamps of the three tables): the scheduler re-reads
    aggregates only when this differs from its last look."""
    with core_reader() as s:
        return tuple(s.connection().execute(_MARKER).one())
