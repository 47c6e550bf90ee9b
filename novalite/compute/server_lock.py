"""Locking a server (Nova's lock/unlock): a locked server refuses changes from anyone
but an admin (novalite.compute.guards.check_lock). Who locked it is kept, so an owner
cannot lift an admin's lock without the override rule; the reason (2.73) is kept in
the instance's system metadata. Both are instance actions with an `api_` event, notified
from the API as Nova's (instance.lock shows the reason as locked_reason)."""

from __future__ import annotations

from novalite.context import RequestContext
from novalite.db.api import actions, instances
from novalite.notifications import events, instance_action
from novalite.objects.instance import Instance


def _system_metadata(instance_uuid: str) -> dict[str, str]:
    return dict(instances.instance_get_view(instance_uuid).get("system_metadata") or {})


def _recorded(ctx: RequestContext, instance: Instance, action: str,
              values: dict[str, object]) -> None:
    actions.action_start(ctx, instance.uuid, action)
    actions.action_event_start(ctx, instance.uuid, f"api_{action}")
    updated = instances.instance_update(instance.uuid, values)
    actions.action_event_finish(ctx, instance.uuid, f"api_{action}")
    instance_action.send(ctx, updated, action, events.API)


def expected_locker(ctx: RequestContext, instance: Instance) -> str:
    return "owner" if instance.project_id == ctx.project_id else "admin"


def lock(ctx: RequestContext, instance: Instance, reason: str | None = None) -> None:
    """An owner locking a locked server changes nothing, as in Nova; an admin locks it
    again as admin."""
    locker = expected_locker(ctx, instance)
    if instance.locked and locker == "owner":
        return
    system_metadata = _system_metadata(instance.uuid)
    if reason:
        system_metadata["locked_reason"] = reason
    _recorded(ctx, instance, "lock", {"locked": True, "locked_by": locker,
                                      "system_metadata": system_metadata})


def locked_by_someone_else(ctx: RequestContext, instance: Instance) -> bool:
    """Whether unlocking needs the override rule (an owner lifting an admin's lock)."""
    locked_by = instances.instance_get_view(instance.uuid).get("locked_by")
    return bool(locked_by) and locked_by != expected_locker(ctx, instance)


def unlock(ctx: RequestContext, instance: Instance) -> None:
    system_metadata = _system_metadata(instance.uuid)
    system_metadata.pop("locked_reason", None)
    _recorded(ctx, instance, "unlock", {"locked": False, "locked_by": None,
                                        "system_metadata": system_metadata})
