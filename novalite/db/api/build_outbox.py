"""The builds an API saved and no conductor has taken yet (a transactional outbox).

The API writes a server's row here in the transaction that saves the server, and a
conductor deletes it when it takes the build. An API killed between saving servers and
sending their builds on leaves their rows; when it starts again it sends those builds
(novalite.compute.api_manager). A row can also be a build still queued for a conductor
(the broker keeps it): sent once more, the conductor finds it taken by its first copy
and does nothing (novalite.conductor.tasks.build_resume)."""

from __future__ import annotations

import datetime
from collections.abc import Iterable

from sqlalchemy import bindparam, delete, exists, insert, select

from novalite.db import models
from novalite.db.session import Unit, core_writer, reader, retry_on_deadlock
from novalite.objects import states

_ADD = insert(models.BuildOutbox.__table__)


def add(s: Unit, instance_uuids: Iterable[str], host: str) -> None:
    """In the caller's transaction: the builds of `instance_uuids` await a conductor."""
    s.connection().execute(_ADD, [{"instance_uuid": uuid, "host": host}
                                  for uuid in instance_uuids])


# Built once: every build a conductor takes runs it.
_TAKE = delete(models.BuildOutbox).where(
    models.BuildOutbox.instance_uuid.in_(bindparam("uuids", expanding=True)))


def take(s: Unit, instance_uuids: Iterable[str]) -> None:
    """In the caller's transaction: a conductor took these builds."""
    s.connection().execute(_TAKE, {"uuids": list(instance_uuids)})


@retry_on_deadlock
def taken(instance_uuids: Iterable[str]) -> None:
    with core_writer() as s:
        take(s, instance_uuids)


def in_flight(before: datetime.datetime) -> list[list[str]]:
    """The builds saved before `before` that no compute took yet, out of the outbox (a
    conductor took them), one list per request: where messages die with the process
    (the all-in-one), those of a process that died, which nobody else carries on."""
    with reader() as s:
        rows = s.execute(
            select(models.Instance.uuid, models.Instance.reservation_id)
            .where(models.Instance.deleted == 0,
                   models.Instance.vm_state == states.BUILDING,
                   models.Instance.task_state == states.SCHEDULING,
                   models.Instance.created_at < before,
                   ~exists().where(models.BuildOutbox.instance_uuid == models.Instance.uuid))
            .order_by(models.Instance.id)).all()
    return _by_request(rows)


def unsent(host: str, before: datetime.datetime) -> list[list[str]]:
    """The builds `host`'s API saved before `before` that no conductor took, one list
    per request (its reservation), in the order they were saved. A row whose server is
    gone (deleted, or withdrawn when its build could not be queued) is dropped."""
    with reader() as s:
        rows = s.execute(
            select(models.BuildOutbox.instance_uuid, models.Instance.id,
                   models.Instance.reservation_id)
            .join(models.Instance, (models.Instance.uuid == models.BuildOutbox.instance_uuid)
                  & (models.Instance.deleted == 0), isouter=True)
            .where(models.BuildOutbox.host == host, models.BuildOutbox.created_at < before)
            .order_by(models.BuildOutbox.created_at, models.BuildOutbox.instance_uuid)).all()
    gone = [uuid for uuid, instance_id, _ in rows if instance_id is None]
    if gone:
        taken(gone)
    return _by_request([(uuid, reservation) for uuid, instance_id, reservation in rows
                        if instance_id is not None])


def _by_request(rows: Iterable[tuple[str, str | None]]) -> list[list[str]]:
    requests: dict[str, list[str]] = {}
    for uuid, reservation in rows:
        requests.setdefault(reservation or uuid, []).append(uuid)
    return list(requests.values())
