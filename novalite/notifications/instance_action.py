"""Instance notifications: an action's `instance.<action>.start`, `.end` and (where Nova
has one) `.error`; `instance.create.*` for a build; `instance.update` on state changes
(`[notifications] notify_on_state_change`); and the single ones of an action that is only
asked for here (`send`: instance.lock, instance.evacuate, instance.rebuild_scheduled).
Mostly the compute service's; `binary` names another sender (Nova's API and conductor
send some).

An action's `.end` shows the instance as the action left it: every copy the compute gets
back from the conductor's instance updates is passed to `record()`, and the running
action keeps the newest copy, as Nova's end notification reads the instance object its
saves changed. Each payload class and what it adds beyond InstanceActionPayload (the
snapshot's image, the rescue image, the new flavor, the volume) is chosen by the
action's name from the arguments of the method it wraps.
"""

from __future__ import annotations

import contextlib
import contextvars
import datetime
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from novalite.conf import CONF
from novalite.context import RequestContext
from novalite.notifications import notifier
from novalite.notifications.objects import instance as payloads
from novalite.notifications.objects.exception import ExceptionPayload
from novalite.notifications.objects.flavor import FlavorPayload
from novalite.objects.instance import Instance
from novalite.timeutils import utcnow

COMPUTE = "novalite-compute"
# Nova sends .error for these actions only; the others fail with compute.exception alone.
ERROR_ACTIONS = frozenset({"create", "rebuild", "reboot", "resize", "interface_attach",
                           "volume_attach"})
# Nova's delete reports the guest's shutdown inside it (delete.start, shutdown.start,
# shutdown.end, delete.end); novalite's delete is one step, so the pair brackets it.
_INNER = {"delete": "shutdown"}

Extra = Callable[[dict[str, Any]], dict[str, Any]]
# action -> (payload class, its extra fields from the wrapped method's arguments)
_PAYLOADS: dict[str, tuple[type[payloads.InstanceActionPayload], Extra]] = {
    "create": (payloads.InstanceCreatePayload, lambda args: {}),
    "rebuild": (payloads.InstanceActionRebuildPayload,
                lambda args: {"trusted_image_certificates": None}),
    "rebuild_scheduled": (payloads.InstanceActionRebuildPayload,
                          lambda args: {"trusted_image_certificates": None}),
    "rescue": (payloads.InstanceActionRescuePayload,
               lambda args: {"rescue_image_ref": getattr(args.get("image"), "id", None)}),
    "snapshot": (payloads.InstanceActionSnapshotPayload,
                 lambda args: {"snapshot_image_id": args["image_id"]}),
    "resize_prep": (payloads.InstanceActionResizePrepPayload,
                    lambda args: {"new_flavor": FlavorPayload.from_flavor(args["flavor"])}),
    "volume_attach": (payloads.InstanceActionVolumePayload,
                      lambda args: {"volume_id": args["bdm"].volume_id}),
    "volume_detach": (payloads.InstanceActionVolumePayload,
                      lambda args: {"volume_id": args["bdm"].volume_id}),
}
_PLAIN: tuple[type[payloads.InstanceActionPayload], Extra] = (
    payloads.InstanceActionPayload, lambda args: {})

_Copy = TypeVar("_Copy", bound=Instance | None)

# The instances of the actions running in this thread, newest copy by uuid.
_running: contextvars.ContextVar[dict[str, Instance] | None] = contextvars.ContextVar(
    "novalite_notified_instances", default=None)


class InstanceAction:
    """One action on one instance, notified as it starts and as it ends or fails."""

    def __init__(self, ctx: RequestContext, instance: Instance, host: str | None,
                 action: str, args: dict[str, Any] | None = None,
                 binary: str = COMPUTE) -> None:
        self.ctx, self.host, self.action, self.binary = ctx, host, action, binary
        self.instance = instance
        self.args = args or {}
        self._token: contextvars.Token[dict[str, Instance] | None] | None = None
        self._latest: dict[str, Instance] = {}

    def start(self) -> None:
        running = _running.get()
        if running is None:
            running = {}
            self._token = _running.set(running)
        running[self.instance.uuid] = self.instance
        self._latest = running
        self._emit(self.action, "start")
        if self.action in _INNER:
            self._emit(_INNER[self.action], "start")

    def end(self) -> None:
        if self.action in _INNER:
            self._emit(_INNER[self.action], "end")
        self._emit(self.action, "end")
        self._finish()

    def error(self, exc: BaseException | None) -> None:
        """The action failed with `exc`: `.error` where Nova has one."""
        if self.action in ERROR_ACTIONS:
            self._emit(self.action, "error", exc)
        self._finish()

    def _finish(self) -> None:
        if self._token is not None:
            _running.reset(self._token)
            self._token = None

    def send(self) -> None:
        """The action's single notification, `instance.<action>` (no phases)."""
        self._emit(self.action, None)

    def _emit(self, action: str, phase: str | None, exc: BaseException | None = None
              ) -> None:
        if not notifier.enabled():
            return
        instance = self._latest.get(self.instance.uuid, self.instance)
        event = f"instance.{action}.{phase}" if phase else f"instance.{action}"
        notifier.emit(self.ctx, event, lambda: self._payload(instance, exc),
                      notifier.publisher_id(self.binary, self.host),
                      notifier.ERROR if phase == "error" else None)

    def _payload(self, instance: Instance, exc: BaseException | None
                 ) -> payloads.InstanceActionPayload:
        cls, extra = _PAYLOADS.get(self.action, _PLAIN)
        fields = {**payloads.instance_fields(self.ctx, instance), **extra(self.args),
                  "fault": ExceptionPayload.from_exception(exc) if exc else None}
        if cls is payloads.InstanceCreatePayload:
            fields.update(keypairs=payloads.instance_keypairs(instance), tags=instance.tags,
                          trusted_image_certificates=None, instance_name=None)
        return cls(**fields)


@contextlib.contextmanager
def notified(ctx: RequestContext, instance: Instance, host: str | None, action: str,
             binary: str = COMPUTE, **args: Any) -> Iterator[None]:
    """`instance.<action>.start`, the work, `.end`; a failure sends `.error` where Nova
    has one and is raised on (for a step that is not a whole `tracked` action: a live
    migration's pre, post and rollback on either host). `args`: what the payload adds."""
    note = InstanceAction(ctx, instance, host, action, args, binary)
    note.start()
    try:
        yield
    except BaseException as exc:
        note.error(exc)
        raise
    note.end()


def send(ctx: RequestContext, instance: Instance, action: str, binary: str,
         host: str | None = None) -> None:
    """`instance.<action>` about `instance` as it is now, from `binary` on `host` (this
    service's own by default)."""
    InstanceAction(ctx, instance, host, action, binary=binary).send()


def record(instance: _Copy) -> _Copy:
    """`instance` is the newest copy of an instance a running action acts on (its .end
    shows this one); returned unchanged. None (nothing came back) is ignored."""
    running = _running.get()
    if running is not None and instance is not None and instance.uuid in running:
        running[instance.uuid] = instance
    return instance


def updated(ctx: RequestContext, old: Instance, new: Instance, host: str) -> None:
    """A guarded update changed `old` into `new` on compute `host`: instance.update if
    its states changed as notify_on_state_change asks."""
    mode = CONF.notifications.notify_on_state_change
    if not mode or not notifier.enabled():
        return
    changed = old.vm_state != new.vm_state or (
        mode == "vm_and_task_state" and old.task_state != new.task_state)
    if not changed:
        return
    notifier.emit(ctx, "instance.update", lambda: _update_payload(ctx, old, new),
                  notifier.publisher_id(COMPUTE, host))


def _update_payload(ctx: RequestContext, old: Instance, new: Instance
                    ) -> payloads.InstanceUpdatePayload:
    now = utcnow()
    return payloads.InstanceUpdatePayload(
        **payloads.instance_fields(ctx, new),
        state_update=payloads.InstanceStateUpdatePayload(
            old_state=old.vm_state, state=new.vm_state, old_task_state=old.task_state,
            new_task_state=new.task_state),
        audit_period=payloads.AuditPeriodPayload(
            audit_period_beginning=datetime.datetime(now.year, now.month, 1),
            audit_period_ending=now),
        old_display_name=old.display_name if old.display_name != new.display_name
        else None,
        tags=new.tags)

