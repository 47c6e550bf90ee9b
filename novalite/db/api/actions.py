"""Instance actions, their events, and instance faults: the history a user or operator
reads to learn what happened to a server and why."""

from __future__ import annotations

import datetime
from typing import Any

from sqlalchemy import Connection, and_, bindparam, insert, or_, select, update

from novalite import context as ctx_mod
from novalite import exception, timeutils
from novalite.db import models
from novalite.db.session import Unit, core_reader, core_writer, reader, retry_on_deadlock

_ADD_ACTION = insert(models.InstanceAction.__table__)


def add_action(s: Unit, ctx: ctx_mod.RequestContext, instance_uuid: str,
               action: str) -> None:
    """Record the start of `action` inside the caller's transaction; `updated_at` moves
    with every event: what 2.58's changes-since filters on."""
    now = timeutils.utcnow()
    s.connection().execute(_ADD_ACTION, {
        "action": action, "instance_uuid": instance_uuid, "request_id": ctx.request_id,
        "user_id": ctx.user_id, "project_id": ctx.project_id, "start_time": now,
        "updated_at": now})


@retry_on_deadlock
def action_start(ctx: ctx_mod.RequestContext, instance_uuid: str, action: str) -> None:
    with core_writer() as s:
        add_action(s, ctx, instance_uuid, action)


# The request's latest action on the instance, by id: every step of a build starts or
# ends one of its events, so these statements are built once, and run on the session's
# connection (actions are added there too).
_ACTIONS = models.InstanceAction.__table__
_EVENTS = models.InstanceActionEvent.__table__
_OF_REQUEST = (_ACTIONS.c.instance_uuid == bindparam("uuid"),
               _ACTIONS.c.request_id == bindparam("request_id"))
_ACTION_ID = select(_ACTIONS.c.id).where(*_OF_REQUEST).order_by(_ACTIONS.c.id.desc()).limit(1)
# That action and its latest open `event`, in one read (no such event: a null event id;
# an action with one has no such row).
_OPEN_EVENT = (select(_ACTIONS.c.id, _EVENTS.c.id.label("event_id"))
               .select_from(_ACTIONS.outerjoin(_EVENTS, and_(
                   _EVENTS.c.action_id == _ACTIONS.c.id, _EVENTS.c.event == bindparam("event"),
                   _EVENTS.c.finish_time.is_(None))))
               .where(*_OF_REQUEST).order_by(_ACTIONS.c.id.desc(), _EVENTS.c.id.desc())
               .limit(1))
_ADD_EVENT = insert(_EVENTS)
_FINISH_EVENT = (update(_EVENTS).where(_EVENTS.c.id == bindparam("event_id"))
                 .values(finish_time=bindparam("now"), result=bindparam("result"),
                         traceback=bindparam("traceback"), details=bindparam("details")))
_TOUCH_ACTION = (update(_ACTIONS).where(_ACTIONS.c.id == bindparam("action_id"))
                 .values(updated_at=bindparam("now")))
_FINISH_ACTION = (update(_ACTIONS).where(_ACTIONS.c.id == bindparam("action_id"))
                  .values(finish_time=bindparam("now"), updated_at=bindparam("now")))
_FAIL_ACTION = _FINISH_ACTION.values(message="Error")


def _action_id(conn: Connection, ctx: ctx_mod.RequestContext, instance_uuid: str
               ) -> int | None:
    found: int | None = conn.scalar(_ACTION_ID, {"uuid": instance_uuid,
                                                 "request_id": ctx.request_id})
    return found


def _open_event(conn: Connection, ctx: ctx_mod.RequestContext, instance_uuid: str,
                event: str) -> tuple[int | None, int | None]:
    """(The request's latest action, its latest open `event`) on the instance."""
    found = conn.execute(_OPEN_EVENT, {"uuid": instance_uuid, "request_id": ctx.request_id,
                                       "event": event}).first()
    return (None, None) if found is None else (found[0], found[1])


@retry_on_deadlock
def action_event_start(ctx: ctx_mod.RequestContext, instance_uuid: str, event: str,
                       host: str | None = None) -> None:
    with core_writer() as s:
        add_event(s, ctx, instance_uuid, event, host)


def add_event(s: Unit, ctx: ctx_mod.RequestContext, instance_uuid: str, event: str,
              host: str | None = None) -> None:
    """Start `event` of the request's action on the instance, in the caller's
    transaction."""
    conn = s.connection()
    action_id = _action_id(conn, ctx, instance_uuid)
    if action_id is None:  # an event outside any recorded action: nothing to attach to
        return
    now = timeutils.utcnow()
    conn.execute(_ADD_EVENT, {"event": event, "action_id": action_id, "host": host,
                              "start_time": now})
    conn.execute(_TOUCH_ACTION, {"action_id": action_id, "now": now})


def event_open(ctx: ctx_mod.RequestContext, instance_uuid: str, event: str) -> bool:
    """Whether `event` of the request's action on the instance was started and not yet
    finished."""
    with core_reader() as s:
        return _open_event(s.connection(), ctx, instance_uuid, event)[1] is not None


def event_finish_times(ctx: ctx_mod.RequestContext, instance_uuid: str, event: str
                       ) -> list[datetime.datetime | None]:
    """When each `event` of the request's action on the instance finished (None: still
    open); empty when it never started."""
    with reader() as s:
        action_id = _action_id(s.connection(), ctx, instance_uuid)
        if action_id is None:
            return []
        return list(s.scalars(select(models.InstanceActionEvent.finish_time)
                              .filter_by(action_id=action_id, event=event)))


def open_events(events: list[str], started_before: datetime.datetime
                ) -> list[tuple[str, str, str | None, str | None, str]]:
    """(instance uuid, request id, user id, project id, event) of each of `events` started
    before `started_before` and not finished, on instances not deleted."""
    with reader() as s:
        rows = s.execute(
            select(models.InstanceAction.instance_uuid, models.InstanceAction.request_id,
                   models.InstanceAction.user_id, models.InstanceAction.project_id,
                   models.InstanceActionEvent.event)
            .join(models.InstanceActionEvent,
                  models.InstanceActionEvent.action_id == models.InstanceAction.id)
            .join(models.Instance, and_(models.Instance.uuid ==
                                        models.InstanceAction.instance_uuid,
                                        models.Instance.deleted == 0))
            .where(models.InstanceActionEvent.event.in_(events),
                   models.InstanceActionEvent.finish_time.is_(None),
                   models.InstanceActionEvent.start_time < started_before)
            .order_by(models.InstanceActionEvent.id)).all()
    return [tuple(row) for row in rows]  # type: ignore[misc]


def finish_event(s: Unit, ctx: ctx_mod.RequestContext, instance_uuid: str, event: str,
                 result: str = "Success", traceback: str | None = None,
                 details: str | None = None) -> None:
    """Record the end of `event` inside the caller's transaction (its latest start; one
    never started is recorded as starting now)."""
    conn = s.connection()
    action_id, event_id = _open_event(conn, ctx, instance_uuid, event)
    if action_id is None:
        return
    now = timeutils.utcnow()
    ended = {"result": result, "traceback": traceback, "details": details}
    if event_id is None:
        conn.execute(_ADD_EVENT, {"event": event, "action_id": action_id, "start_time": now,
                                  "finish_time": now, **ended})
    else:
        conn.execute(_FINISH_EVENT, {"event_id": event_id, "now": now, **ended})
    conn.execute(_FAIL_ACTION if result.lower() == "error" else _FINISH_ACTION,
                 {"action_id": action_id, "now": now})


@retry_on_deadlock
def action_event_finish(ctx: ctx_mod.RequestContext, instance_uuid: str, event: str,
                        result: str = "Success", traceback: str | None = None,
                        details: str | None = None) -> None:
    with core_writer() as s:
        finish_event(s, ctx, instance_uuid, event, result, traceback, details)


def actions_get(instance_uuid: str) -> list[dict[str, Any]]:
    with reader() as s:
        rows = s.scalars(select(models.InstanceAction).filter_by(instance_uuid=instance_uuid)
                         .order_by(models.InstanceAction.id))
        return [{
            "action": a.action, "request_id": a.request_id, "user_id": a.user_id,
            "project_id": a.project_id, "start_time": a.start_time,
            "finish_time": a.finish_time, "message": a.message,
            "events": [{"event": e.event, "start_time": e.start_time,
                        "finish_time": e.finish_time, "result": e.result, "host": e.host,
                        "traceback": e.traceback, "details": e.details} for e in a.events],
        } for a in rows]


def _action(a: models.InstanceAction) -> dict[str, Any]:
    return {"id": a.id, "action": a.action, "instance_uuid": a.instance_uuid,
            "request_id": a.request_id, "user_id": a.user_id, "project_id": a.project_id,
            "start_time": a.start_time, "message": a.message,
            "updated_at": a.updated_at or a.start_time}


def actions_list(instance_uuid: str, limit: int | None = None, marker: str | None = None,
                 since: datetime.datetime | None = None,
                 before: datetime.datetime | None = None) -> list[dict[str, Any]]:
    """Newest first, as Nova lists them; `marker` is the request id of the last action of
    the previous page; `since`/`before` bound `updated_at`."""
    action = models.InstanceAction
    query = select(action).filter_by(instance_uuid=instance_uuid)
    if since is not None:
        query = query.where(action.updated_at >= since)
    if before is not None:
        query = query.where(action.updated_at <= before)
    with reader() as s:
        if marker is not None:
            last = s.scalar(select(action).filter_by(instance_uuid=instance_uuid,
                                                     request_id=marker))
            if last is None:
                raise exception.MarkerNotFound(marker=marker)
            query = query.where(or_(action.created_at < last.created_at,
                                    and_(action.created_at == last.created_at,
                                         action.id < last.id)))
        query = query.order_by(action.created_at.desc(), action.id.desc()).limit(limit)
        return [_action(a) for a in s.scalars(query)]


def action_get_by_request_id(instance_uuid: str, request_id: str) -> dict[str, Any] | None:
    """The action with its events, oldest event first."""
    with reader() as s:
        row = s.scalars(select(models.InstanceAction)
                        .filter_by(instance_uuid=instance_uuid, request_id=request_id)
                        .order_by(models.InstanceAction.id.desc())).first()
        if row is None:
            return None
        return {**_action(row), "events": [
            {"event": e.event, "start_time": e.start_time, "finish_time": e.finish_time,
             "result": e.result, "traceback": e.traceback, "host": e.host,
             "details": e.details} for e in sorted(row.events, key=lambda e: e.id)]}


_ADD_FAULT = insert(models.InstanceFault.__table__)


@retry_on_deadlock
def fault_create(instance_uuid: str, code: int, message: str, details: str | None = None,
                 host: str | None = None) -> None:
    with core_writer() as s:
        add_fault(s, instance_uuid, code, message, details, host)


def add_fault(s: Unit, instance_uuid: str, code: int, message: str,
              details: str | None = None, host: str | None = None) -> None:
    """Record a fault inside the caller's transaction (with the ERROR it explains)."""
    s.connection().execute(_ADD_FAULT, {"instance_uuid": instance_uuid, "code": code,
                                        "message": message[:255], "details": details,
                                        "host": host})


_F = models.InstanceFault
# Built once: a client waiting for its server polls a view with it.
_FAULTS_OF = (select(_F.instance_uuid, _F.code, _F.message, _F.details, _F.created_at)
              .where(_F.instance_uuid.in_(bindparam("uuids", expanding=True)))
              .order_by(_F.id))


def fault_get_latest(instance_uuids: list[str]) -> dict[str, dict[str, Any]]:
    """The newest fault of each instance, as the API shows it."""
    if not instance_uuids:
        return {}
    with core_reader() as s:
        rows = s.connection().execute(_FAULTS_OF, {"uuids": instance_uuids})
        return {uuid: {"code": code, "message": message, "details": details,
                       "created": created}
                for uuid, code, message, details, created in rows}
