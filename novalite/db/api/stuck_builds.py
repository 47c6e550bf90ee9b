"""Finding and ending builds nobody advances any more (the conductors' build watchdog).

Leader-free: every conductor runs it. The instances are taken with SELECT ... FOR UPDATE
SKIP LOCKED on PostgreSQL and MariaDB (a second conductor skips what the first holds, and
after the first commits they are no longer in BUILD), and under SQLite's single writer
otherwise; so each stuck instance gets its fault and its ERROR from exactly one conductor,
which alone frees its allocations.
"""

from __future__ import annotations

import datetime

from sqlalchemy import exists, func, select, update

from novalite.db import models
from novalite.db.session import retry_on_deadlock, writer
from novalite.objects import states
from novalite.timeutils import utcnow


@retry_on_deadlock
def bury_stuck_builds(older_than: datetime.datetime, message: str,
                      queued_before: datetime.datetime | None = None, limit: int = 100
                      ) -> list[str]:
    """Put up to `limit` instances in BUILD unchanged since `older_than` (and not being
    deleted) in ERROR on no host, each with a fault saying `message` written in the same
    transaction; returns the uuids this call ended (whose claims the caller frees: an
    ERROR server that holds a host holds its allocation, one that holds none, none).

    A build no conductor took yet (in the API's outbox) waits in a queue behind others,
    or its API died before sending it and sends it when it starts again: it is ended
    only if saved before `queued_before` (its API never came back)."""
    with writer() as s:
        last_change = func.coalesce(models.Instance.updated_at, models.Instance.created_at)
        queued = exists().where(models.BuildOutbox.instance_uuid == models.Instance.uuid,
                                models.BuildOutbox.created_at >= (queued_before or older_than))
        query = (select(models.Instance.uuid, models.Instance.host)
                 .where(models.Instance.deleted == 0,
                        models.Instance.vm_state == states.BUILDING,
                        (models.Instance.task_state.is_(None))
                        | (models.Instance.task_state != states.DELETING),
                        last_change < older_than, ~queued)
                 .order_by(models.Instance.id).limit(limit))
        if s.get_bind().dialect.name != "sqlite":
            query = query.with_for_update(skip_locked=True)
        stuck = list(s.execute(query))
        if not stuck:
            return []
        for uuid, host in stuck:
            s.add(models.InstanceFault(instance_uuid=uuid, code=500, message=message[:255],
                                       host=host))
        s.execute(update(models.Instance)
                  .where(models.Instance.uuid.in_([uuid for uuid, _ in stuck]))
                  .values(vm_state=states.ERROR, task_state=None, host=None, node=None,
                          updated_at=utcnow())
                  .execution_options(synchronize_session=False))
        return [uuid for uuid, _ in stuck]
