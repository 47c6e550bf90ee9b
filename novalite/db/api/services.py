"""Service records and heartbeats."""

from __future__ import annotations

import datetime
import uuid as uuidlib
from collections.abc import Iterable, Sequence
from itertools import product
from typing import Any

from sqlalchemy import bindparam, or_, select, update
from sqlalchemy.exc import IntegrityError

from novalite import exception, timeutils
from novalite.db import models
from novalite.db.session import (
    Unit,
    core_reader,
    in_chunks,
    reader,
    retry_on_deadlock,
    run_dml,
    stamped_since,
    unseen,
    writer,
)
from novalite.objects.service import Service

# Every compute service's record is read at a scheduler's start: plain rows in the object's
# field order, built positionally (reading a row's columns by name cost twice the query).
_ROW = [models.Service.__table__.c[f] for f in Service.__dataclass_fields__]


def _to_obj(row: Any) -> Service:
    return Service(
        id=row.id, uuid=row.uuid, host=row.host, binary=row.binary, topic=row.topic,
        report_count=row.report_count, disabled=row.disabled,
        disabled_reason=row.disabled_reason, forced_down=row.forced_down,
        created_at=row.created_at, updated_at=row.updated_at, last_seen_up=row.last_seen_up,
    )


def service_get_or_create(host: str, binary: str, topic: str | None) -> Service:
    return service_get_or_create_many([host], binary, topic)[0]


def service_get_or_create_many(hosts: Sequence[str], binary: str, topic: str | None
                               ) -> list[Service]:
    """The `binary` service of each of `hosts` (in their order), created where there is
    none, in one transaction per 500 hosts: a compute process simulating thousands of
    hosts registers them together. Two processes registering one host at once both find
    no record and both insert: the loser's duplicate key means the winner's record
    exists, so it reads that one (as Nova's service create catches
    DBDuplicateEntry)."""
    found: dict[str, Service] = {}
    for chunk in in_chunks(list(dict.fromkeys(hosts))):
        try:
            found.update(_get_or_create(chunk, binary, topic))
        except IntegrityError:
            found.update((svc.host, svc) for svc in service_get_by_hosts(chunk, binary))
    missing = [host for host in hosts if host not in found]
    if missing:  # created by another process and deleted again meanwhile
        raise exception.ServiceNotFound(service_id=f"{binary} on {', '.join(missing)}")
    return [found[host] for host in hosts]


@retry_on_deadlock
def _get_or_create(hosts: Sequence[str], binary: str, topic: str | None
                   ) -> dict[str, Service]:
    with writer() as s:
        found = {svc.host: svc for svc in _live_of_hosts(s, hosts, binary)}
        now = timeutils.utcnow()
        made = [models.Service(uuid=str(uuidlib.uuid4()), host=host, binary=binary,
                               topic=topic, last_seen_up=now)
                for host in hosts if host not in found]
        s.add_all(made)
        s.flush()
        return {**found, **{row.host: _to_obj(row) for row in made}}


@retry_on_deadlock
def service_heartbeat(service_ids: Sequence[int]) -> list[int]:
    """Each service's report_count and last heartbeat, in one transaction for all of a
    process's services; the ids of those without a live record (deleted through
    os-services while they ran) are returned."""
    now = timeutils.utcnow()
    wanted = list(dict.fromkeys(service_ids))
    missing: list[int] = []
    with writer() as s:
        for chunk in in_chunks(wanted):
            live = models.Service.id.in_(chunk), models.Service.deleted == 0
            beat = run_dml(s, update(models.Service).where(*live).values(
                report_count=models.Service.report_count + 1, updated_at=now,
                last_seen_up=now)).rowcount
            if beat < len(chunk):
                found = set(s.scalars(select(models.Service.id).where(*live)))
                missing += [service_id for service_id in chunk if service_id not in found]
    return missing


def _all_query(by_binary: bool, changed: bool) -> Any:
    """Every service in id order; or those changed, in no order: each stamp's index then
    finds them (SQLite otherwise scans every row in id order, which at 10,000 services
    cost a scheduling decision 1.5 ms of CPU, most often to find none)."""
    query = select(*_ROW).where(models.Service.deleted == 0)
    if by_binary:
        query = query.where(models.Service.binary == bindparam("binary"))
    if changed:
        return query.where(or_(models.Service.updated_at >= bindparam("since"),
                               models.Service.created_at >= bindparam("since")))
    return query.order_by(models.Service.id)


# Built once per shape: every scheduling decision's refresh asks.
_ALL = {shape: _all_query(*shape) for shape in product((False, True), repeat=2)}


def service_get_all(binary: str | None = None,
                    changed_since: datetime.datetime | None = None,
                    known: dict[int, tuple[Any, ...]] | None = None) -> list[Service]:
    """Live services; with `changed_since`, only those created or updated (a heartbeat,
    an enable/disable) since then. `known`: the row last read of each service by id
    (see novalite.db.session.unseen); a service whose row is still that one is left
    out."""
    query = _ALL[bool(binary), changed_since is not None]
    with core_reader() as s:  # plain columns: no ORM loading per row
        since = None if changed_since is None else stamped_since(changed_since)
        rows = s.connection().execute(query, {"binary": binary, "since": since})
        return [Service(*r) for r in (rows if known is None else unseen(rows, known, "id"))]


_LIVE_ROWS_OF_HOSTS = select(*_ROW).where(
    models.Service.host.in_(bindparam("hosts", expanding=True)),
    models.Service.binary == bindparam("binary"), models.Service.deleted == 0)


def service_get_by_hosts(hosts: Iterable[str], binary: str) -> list[Service]:
    """The live `binary` services of just these hosts: a server's host status is asked
    at each show, and reading every compute's service for it cost a 10,000-host cloud
    tens of milliseconds a request."""
    wanted = sorted(set(hosts))
    if not wanted:
        return []
    with core_reader() as s:
        return _live_of_hosts(s, wanted, binary)


def _live_of_hosts(s: Unit, hosts: Sequence[str], binary: str) -> list[Service]:
    return [Service(*r) for r in s.connection().execute(
        _LIVE_ROWS_OF_HOSTS, {"hosts": hosts, "binary": binary})]


def service_get_by_host_and_binary(host: str, binary: str) -> Service:
    """Read as plain columns: whether a server's host is up is asked at each delete."""
    found = service_get_by_hosts([host], binary)
    if not found:
        raise exception.ComputeHostNotFound(host=host)
    return found[0]


def service_get(ident: int | str) -> Service:
    """By id (an int, the API's ids before 2.53) or uuid (a str, from 2.53)."""
    column = models.Service.id if isinstance(ident, int) else models.Service.uuid
    with reader() as s:
        row = s.scalar(select(models.Service).where(column == ident,
                                                    models.Service.deleted == 0))
        if row is None:
            raise exception.ServiceNotFound(service_id=ident)
        return _to_obj(row)


@retry_on_deadlock
def service_update(service_id: int, values: dict[str, object]) -> Service:
    """Set `disabled`, `disabled_reason` and/or `forced_down` of a live service."""
    with writer() as s:
        row = s.scalar(select(models.Service).filter_by(id=service_id, deleted=0))
        if row is None:
            raise exception.ServiceNotFound(service_id=service_id)
        for key, value in values.items():
            setattr(row, key, value)
        row.updated_at = timeutils.utcnow()
        s.flush()
        return _to_obj(row)


@retry_on_deadlock
def service_destroy(service_id: int) -> None:
    """Soft-delete the service and, for a compute, its host's compute nodes (Nova
    deletes them with the service)."""
    now = timeutils.utcnow()
    with writer() as s:
        row = s.scalar(select(models.Service).filter_by(id=service_id, deleted=0))
        if row is None:
            raise exception.ServiceNotFound(service_id=service_id)
        row.deleted, row.deleted_at = row.id, now
        s.execute(update(models.ComputeNode)
                  .where(models.ComputeNode.host == row.host,
                         models.ComputeNode.deleted == 0)
                  .values(deleted=models.ComputeNode.id, deleted_at=now))
