"""Host aggregates: named groups of hosts with metadata (availability zones among them)."""

from __future__ import annotations

import uuid as uuidlib
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError

from novalite import exception
from novalite.db import models
from novalite.db.session import reader, retry_on_deadlock, writer


def _to_dict(row: models.Aggregate) -> dict[str, Any]:
    return {"id": row.id, "uuid": row.uuid, "name": row.name,
            "hosts": sorted(h.host for h in row.hosts),
            "metadata": {m.key: m.value for m in row.metadata_items},
            "created_at": row.created_at, "updated_at": row.updated_at}


@retry_on_deadlock
def aggregate_create(name: str, metadata: dict[str, str] | None = None,
                     hosts: list[str] | None = None) -> dict[str, Any]:
    with writer() as s:
        row = models.Aggregate(
            uuid=str(uuidlib.uuid4()), name=name,
            metadata_items=[models.AggregateMetadata(key=k, value=v)
                            for k, v in (metadata or {}).items()],
            hosts=[models.AggregateHost(host=h) for h in hosts or []])
        s.add(row)
        try:
            s.flush()
        except IntegrityError:
            raise exception.Conflict(f"Aggregate {name} already exists.") from None
        return _to_dict(row)


def aggregate_get_all() -> list[dict[str, Any]]:
    with reader() as s:
        return [_to_dict(r) for r in s.scalars(select(models.Aggregate)
                                               .order_by(models.Aggregate.id))]


def aggregates_by_host() -> dict[str, list[dict[str, Any]]]:
    """Each host's aggregates with their metadata, for the scheduler's host states."""
    by_host: dict[str, list[dict[str, Any]]] = {}
    for aggregate in aggregate_get_all():
        for host in aggregate["hosts"]:
            by_host.setdefault(host, []).append(aggregate)
    return by_host


def aggregates_marker() -> tuple:
    """Changes whenever an aggregate, its hosts or its metadata change (row counts, the
    newest id and the newest timestamps of the three tables): the scheduler re-reads
    aggregates only when this differs from its last look."""
    with reader() as s:
        marker: list[Any] = []
        for table in (models.Aggregate, models.AggregateHost, models.AggregateMetadata):
            marker.extend(s.execute(select(func.count(), func.max(table.id),
                                           func.max(table.created_at),
                                           func.max(table.updated_at))).one())
        return tuple(marker)
