"""How the compute manager wraps every RPC action on an instance (Nova's
wrap_instance_event, wrap_instance_fault and reverts_task_state stacked, in one place).

`tracked(event)` takes the per-instance lock (a delete waits for the step in progress, and
vice versa), records the action event's start and finish, and on a failure writes the
fault first and then clears the task state, so the instance is never stuck mid-action and
whoever sees the task state cleared sees the reason. A task state someone else changed
meanwhile is theirs and is left alone. `tracked(event, notify="power_off")` also sends
Nova's instance.power_off.start/.end (and .error where Nova has one); every failure sends
compute.exception, as Nova's wrap_exception does. `tracked(event, alongside=True)` is for a step
that acts on another one under way (a live migration's abort or force-complete): it
neither waits for that step's lock nor ends its task; a failure only writes the fault.

`tracked_build(event)` is the build's variant: the build semaphore as well as the lock,
then the manager's `_take_build` (a build this host was sent twice is taken once: the
second finds it taken and leaves no trace), the event started and (for a build that went
ACTIVE) ended by the instance's updates, instance.create.start/.end/.error around each
attempt; the body returns a BuildResult or raises, and a raised failure goes to the manager's
`_build_failed`, which reschedules or buries the instance. A failure of that handling
itself (the conductor unreachable) is logged; the build watchdogs end such a build.
"""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import functools
import inspect
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, Protocol, TypeVar

from novalite import exception
from novalite.context import RequestContext
from novalite.notifications import events
from novalite.notifications.instance_action import COMPUTE, InstanceAction
from novalite.objects.instance import Instance

if TYPE_CHECKING:
    from novalite.conductor.rpcapi import ConductorAPI
    from novalite.locks import KeyedLocks
    from novalite.objects.request_spec import FilterProperties, RequestSpec, Selection

LOG = logging.getLogger(__name__)


class BuildResult(enum.Enum):
    """How a build ended on this host (Nova's build_results)."""

    ACTIVE = "active"
    SKIPPED = "skipped: deleted before the build started"
    ABORTED = "aborted: deleted during the build"
    FAILED = "failed"  # ERROR with a fault
    RESCHEDULED = "rescheduled"  # handed back to the conductor for an alternate
    DUPLICATE = "skipped: sent twice, and taken the first time"


class ActionHost(Protocol):
    host: str
    conductor: ConductorAPI
    _locks: KeyedLocks

    def _record_failure(self, ctx: RequestContext, instance: Instance, exc: Exception,
                        error_vm_state: str | None, end_task: bool = True) -> None: ...


class BuildHost(ActionHost, Protocol):
    _build_semaphore: contextlib.AbstractContextManager

    def _take_build(self, ctx: RequestContext, instance: Instance, event: str
                    ) -> Instance | BuildResult: ...

    def _build_failed(self, ctx: RequestContext, instance: Instance, spec: RequestSpec,
                      props: FilterProperties, host_list: list[Selection],
                      exc: Exception) -> BuildResult: ...


M = TypeVar("M", bound=ActionHost)
B = TypeVar("B", bound=BuildHost)
P = ParamSpec("P")


def tracked(event: str, error_vm_state: str | None = None, alongside: bool = False,
            notify: str | None = None, owns_task: bool = True, reraise: bool = False,
            announce: Callable[[Instance, dict[str, Any]], Instance] | None = None
            ) -> Callable[[Callable[Concatenate[M, RequestContext, Instance, P], None]],
                          Callable[Concatenate[M, RequestContext, Instance, P], None]]:
    """Wrap an action on `instance`; a failure also sets `error_vm_state` if given (a
    delete that failed leaves the instance in ERROR, as Nova, so it can be deleted
    again). `notify` is the action's name in Nova's instance.<action>.* notifications.
    An action the API gave no task state (`owns_task=False`: an interface attach or
    detach) ends none on failure: one set meanwhile belongs to the next action. With
    `reraise`, a failure recorded is raised on to the caller of an RPC call. `announce`:
    the instance as `.start` shows it, from the instance and the action's arguments
    (where Nova's compute sets a state in memory just before it notifies)."""
    def decorate(fn: Callable[Concatenate[M, RequestContext, Instance, P], None]
                 ) -> Callable[Concatenate[M, RequestContext, Instance, P], None]:
        signature = inspect.signature(fn)

        @functools.wraps(fn)
        def wrapper(self: M, ctx: RequestContext, instance: Instance,
                    *args: P.args, **kwargs: P.kwargs) -> None:
            with contextlib.nullcontext() if alongside else self._locks(instance.uuid):
                self.conductor.action_event_start(ctx, instance.uuid, event, self.host)
                note = InstanceAction(
                    ctx, instance, self.host, notify,
                    signature.bind(self, ctx, instance, *args, **kwargs).arguments
                ) if notify else None
                try:
                    if note:
                        if announce:
                            note.instance = announce(instance, note.args)
                        note.start()
                    fn(self, ctx, instance, *args, **kwargs)
                except Exception as exc:
                    LOG.exception("%s failed for instance %s", event, instance.uuid)
                    if note:
                        note.error(exc)
                    events.exception(exc, COMPUTE, ctx, self.host)
                    if not isinstance(exc, exception.UnexpectedTaskStateError):
                        self._record_failure(ctx, instance, exc, error_vm_state,
                                             end_task=owns_task and not alongside)
                    self.conductor.action_event_finish(ctx, instance.uuid, event, "Error",
                                                       exception.format_tb(exc))
                    if reraise:
                        raise
                else:
                    if note:
                        note.end()
                    self.conductor.action_event_finish(ctx, instance.uuid, event, "Success")
        return wrapper
    return decorate


BuildFn = Callable[[B, RequestContext, Instance, "RequestSpec", "FilterProperties",
                    "list[Selection]", str], BuildResult]


def tracked_build(event: str) -> Callable[[BuildFn[B]], BuildFn[B]]:
    """Take the build and run it as `event`: the update that takes the build starts
    the event, and the wrapped build ends it with the update that makes the instance
    ACTIVE, each in that update's transaction; any other outcome is ended here."""
    def decorate(fn: BuildFn[B]) -> BuildFn[B]:
        @functools.wraps(fn)
        def wrapper(self: B, ctx: RequestContext, instance: Instance, spec: RequestSpec,
                    props: FilterProperties, host_list: list[Selection], node: str
                    ) -> BuildResult:
            with self._build_semaphore, self._locks(instance.uuid):
                note = InstanceAction(ctx, instance, self.host, "create")
                try:
                    taken = self._take_build(ctx, instance, event)
                    if taken is BuildResult.DUPLICATE:
                        return taken  # the first delivery's build records itself
                    if taken is BuildResult.SKIPPED:  # gone: no update started it
                        self.conductor.action_event_start(ctx, instance.uuid, event,
                                                          self.host)
                    if isinstance(taken, Instance):  # as Nova's: before the claim sets
                        note.instance = dataclasses.replace(taken, host=None, node=None)
                    note.start()
                    result = (taken if isinstance(taken, BuildResult)
                              else fn(self, ctx, taken, spec, props, host_list, node))
                except Exception as exc:
                    note.error(exc)
                    try:
                        result = self._build_failed(ctx, instance, spec, props, host_list,
                                                    exc)
                        self.conductor.action_event_finish(ctx, instance.uuid, event,
                                                           "Error", exception.format_tb(exc))
                    except Exception:
                        LOG.exception("Build of instance %s failed (%s) and could not be "
                                      "rescheduled or buried; the build watchdog will end "
                                      "it", instance.uuid, exc)
                        return BuildResult.FAILED
                    return result
                if result is BuildResult.ACTIVE:
                    note.end()
                    return result
                note.error(None)  # deleted before or during the build
                self.conductor.action_event_finish(ctx, instance.uuid, event, "Error")
                return result
        return wrapper
    return decorate
