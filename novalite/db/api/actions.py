"""Instance actions, their events, and instance faults: the history a user or operator
reads to learn what happened to a server and why."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from novalite import context as ctx_mod
from novalite.db import models
from novalite.db.session import reader, retry_on_deadlock, writer


@retry_on_deadlock
def action_start(ctx: ctx_mod.RequestContext, instance_uuid: str, action: str) -> None:
    with writer() as s:
        s.add(models.InstanceAction(
            action=action, instance_uuid=instance_uuid, request_id=ctx.request_id,
            user_id=ctx.user_id, project_id=ctx.project_id, start_time=models.utcnow(),
        ))


def _action_row(s: Any, ctx: ctx_mod.RequestContext, instance_uuid: str
                ) -> models.InstanceAction | None:
    return s.scalars(select(models.InstanceAction)
                     .filter_by(instance_uuid=instance_uuid, request_id=ctx.request_id)
                     .order_by(models.InstanceAction.id.desc())).first()


@retry_on_deadlock
def action_event_start(ctx: ctx_mod.RequestContext, instance_uuid: str, event: str,
                       host: str | None = None) -> None:
    with writer() as s:
        action = _action_row(s, ctx, instance_uuid)
        if action is None:  # an event outside any recorded action: nothing to attach to
            return
        s.add(models.InstanceActionEvent(event=event, action_id=action.id, host=host,
                                         start_time=models.utcnow()))


@retry_on_deadlock
def action_event_finish(ctx: ctx_mod.RequestContext, instance_uuid: str, event: str,
                        result: str = "Success", traceback: str | None = None,
                        details: str | None = None) -> None:
    now = models.utcnow()
    with writer() as s:
        action = _action_row(s, ctx, instance_uuid)
        if action is None:
            return
        row = s.scalars(select(models.InstanceActionEvent)
                        .filter_by(action_id=action.id, event=event, finish_time=None)
                        .order_by(models.InstanceActionEvent.id.desc())).first()
        if row is None:
            row = models.InstanceActionEvent(event=event, action_id=action.id, start_time=now)
            s.add(row)
        row.finish_time, row.result, row.traceback, row.details = now, result, traceback, details
        if result.lower() == "error":
            action.message = "Error"
        action.finish_time = now


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


@retry_on_deadlock
def fault_create(instance_uuid: str, code: int, message: str, details: str | None = None,
                 host: str | None = None) -> None:
    with writer() as s:
        s.add(models.InstanceFault(instance_uuid=instance_uuid, code=code,
                                   message=message[:255], details=details, host=host))


def fault_get_latest(instance_uuids: list[str]) -> dict[str, dict[str, Any]]:
    """The newest fault of each instance, as the API shows it."""
    if not instance_uuids:
        return {}
    with reader() as s:
        rows = s.scalars(select(models.InstanceFault)
                         .where(models.InstanceFault.instance_uuid.in_(instance_uuids))
                         .order_by(models.InstanceFault.id))
        return {r.instance_uuid: {"code": r.code, "message": r.message, "details": r.details,
                                  "created": r.created_at} for r in rows}
