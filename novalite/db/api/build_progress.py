"""Where builds stand, for the conductor handling a build message that may have been
handled before (its messages are acknowledged only once done, so a conductor killed
half-way leaves them to be delivered again): what the instance rows say was done."""

from __future__ import annotations

import dataclasses
import datetime

from sqlalchemy import bindparam, select, update

from novalite import context as ctx_mod
from novalite.db import models
from novalite.db.api import actions, build_outbox
from novalite.db.session import Unit, core_reader, core_writer, retry_on_deadlock, writer
from novalite.objects import states
from novalite.timeutils import utcnow


@dataclasses.dataclass(frozen=True)
class BuildProgress:
    vm_state: str | None
    task_state: str | None
    host: str | None  # recorded with the build's claim on it, before the build is sent
    node: str | None
    scheduled_at: datetime.datetime | None  # set once a host was first recorded
    launched_on: str | None  # the last host recorded; a failed build keeps it


_COLUMNS = (models.Instance.uuid, models.Instance.vm_state, models.Instance.task_state,
            models.Instance.host, models.Instance.node, models.Instance.scheduled_at,
            models.Instance.launched_on)


def build_progress(uuids: list[str]) -> dict[str, BuildProgress]:
    """The live instances among `uuids` (a deleted one is absent) and their progress."""
    with core_reader() as s:
        return _read(s, uuids)


@retry_on_deadlock
def take_over(uuids: list[str]) -> dict[str, BuildProgress]:
    """build_progress for a redelivered message, after marking the builds still being
    scheduled as changed now: the build watchdog ends only builds unchanged for its
    timeout, so it leaves alone one whose message comes back (and then moves it on),
    rather than burying it half-way."""
    with writer() as s:
        _touch_scheduling(s, uuids)
        return _read(s, uuids)


# Built once: every build a conductor takes runs both.
_TOUCH = (update(models.Instance)
          .where(models.Instance.uuid.in_(bindparam("uuids", expanding=True)),
                 models.Instance.deleted == 0,
                 models.Instance.vm_state == states.BUILDING,
                 models.Instance.task_state == states.SCHEDULING)
          .values(updated_at=bindparam("now"))
          .execution_options(synchronize_session=False))
_PROGRESS = select(*_COLUMNS).where(models.Instance.uuid.in_(bindparam("uuids", expanding=True)),
                                    models.Instance.deleted == 0)


def _touch_scheduling(s: Unit, uuids: list[str]) -> None:
    """The builds among `uuids` still being scheduled changed now (for the watchdog)."""
    s.connection().execute(_TOUCH, {"uuids": list(uuids), "now": utcnow()})


def _read(s: Unit, uuids: list[str]) -> dict[str, BuildProgress]:
    rows = s.connection().execute(_PROGRESS, {"uuids": list(uuids)})
    return {row.uuid: BuildProgress(row.vm_state, row.task_state, row.host, row.node,
                                    row.scheduled_at, row.launched_on) for row in rows}


@retry_on_deadlock
def taken(ctx: ctx_mod.RequestContext, instance_uuids: list[str], to_schedule: list[str],
          event: str) -> None:
    """A conductor took the builds of `instance_uuids` (out of the API's outbox) and starts
    `event` of those it schedules, in one transaction. Taken is progress: the build
    watchdog's clock starts again for those, whatever their wait in the queue."""
    with core_writer() as s:
        build_outbox.take(s, instance_uuids)
        _touch_scheduling(s, to_schedule)
        for uuid in to_schedule:
            actions.add_event(s, ctx, uuid, event)
