"""Service records and heartbeats."""

from __future__ import annotations

import datetime
import uuid as uuidlib

from sqlalchemy import or_, select, update

from novalite import exception
from novalite.db import models
from novalite.db.session import reader, retry_on_deadlock, writer
from novalite.objects.service import Service


def _to_obj(row: models.Service) -> Service:
    return Service(
        id=row.id, uuid=row.uuid, host=row.host, binary=row.binary, topic=row.topic,
        report_count=row.report_count, disabled=row.disabled,
        disabled_reason=row.disabled_reason, forced_down=row.forced_down,
        created_at=row.created_at, updated_at=row.updated_at, last_seen_up=row.last_seen_up,
    )


@retry_on_deadlock
def service_get_or_create(host: str, binary: str, topic: str | None) -> Service:
    with writer() as s:
        row = s.scalar(select(models.Service).filter_by(host=host, binary=binary, deleted=0))
        if row is None:
            row = models.Service(uuid=str(uuidlib.uuid4()), host=host, binary=binary,
                                 topic=topic, last_seen_up=models.utcnow())
            s.add(row)
            s.flush()
        return _to_obj(row)


@retry_on_deadlock
def service_heartbeat(service_id: int) -> None:
    now = models.utcnow()
    with writer() as s:
        result = s.execute(
            update(models.Service)
            .where(models.Service.id == service_id, models.Service.deleted == 0)
            .values(report_count=models.Service.report_count + 1, updated_at=now,
                    last_seen_up=now)
        )
        if not result.rowcount:
            raise exception.ServiceNotFound(service_id=service_id)


def service_get_all(binary: str | None = None,
                    changed_since: datetime.datetime | None = None) -> list[Service]:
    """Live services; with `changed_since`, only those created or updated (a heartbeat,
    an enable/disable) since then."""
    with reader() as s:
        query = select(models.Service).filter_by(deleted=0)
        if binary:
            query = query.filter_by(binary=binary)
        if changed_since is not None:
            query = query.where(or_(models.Service.updated_at >= changed_since,
                                    models.Service.created_at >= changed_since))
        return [_to_obj(r) for r in s.scalars(query.order_by(models.Service.id))]


def service_get_by_host_and_binary(host: str, binary: str) -> Service:
    with reader() as s:
        row = s.scalar(select(models.Service).filter_by(host=host, binary=binary, deleted=0))
        if row is None:
            raise exception.ComputeHostNotFound(host=host)
        return _to_obj(row)
