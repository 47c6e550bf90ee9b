"""The API's preconditions for acting on an instance (Nova's check_instance_* decorators).

Each raises a Conflict the HTTP layer answers as 409, worded as Nova words it, so a client
learns which state blocked the action.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

from novalite import exception
from novalite.context import RequestContext
from novalite.objects.instance import Instance


def check_lock(ctx: RequestContext, instance: Instance) -> None:
    """A locked instance refuses changes from anyone but an admin."""
    if instance.locked and not ctx.is_admin:
        raise exception.InstanceIsLocked(instance_uuid=instance.uuid)


def check_host(instance: Instance) -> str:
    """Actions carried out by a compute host need the instance to be on one: its name."""
    if not instance.host:
        raise exception.InstanceNotReady(instance_id=instance.uuid)
    return instance.host


def check_state(instance: Instance, action: str, vm_states: Collection[str] | None = None,
                task_states: Iterable[str | None] = (None,),
                must_have_launched: bool = True) -> None:
    """vm_state, then task_state, then "has it ever run", in Nova's order."""
    def invalid(attr: str, state: object) -> exception.InstanceInvalidState:
        return exception.InstanceInvalidState(action=action, instance_uuid=instance.uuid,
                                              attr=attr, state=state)

    if vm_states is not None and instance.vm_state not in vm_states:
        raise invalid("vm_state", instance.vm_state)
    if instance.task_state not in task_states:
        raise invalid("task_state", instance.task_state)
    if must_have_launched and not instance.launched_at:
        raise invalid("launched_at", instance.launched_at)


def reject_task_state(instance: Instance, action: str, task_states: Collection[str]) -> None:
    """Refuse while one of `task_states` is under way (Nova's reject_instance_state)."""
    if instance.task_state in task_states:
        raise exception.InstanceInvalidState(action=action, instance_uuid=instance.uuid,
                                             attr="task_state", state=instance.task_state)
