"""The compute manager: builds, deletes and powers instances on this host through the
virt driver, and keeps their recorded power state true to the hypervisor (periodically,
and at once when the driver reports a guest changed by itself).

Builds run under a per-instance lock (a delete waits for the build step in progress, and
vice versa) and a semaphore of `max_concurrent_builds`. Every state change is a guarded
update (expected task_state), so a delete that races a build wins cleanly: the build
notices, undoes its work and stops.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import traceback
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor

from novalite import exception
from novalite.compute import host_boot, power_sync, server_groups, states
from novalite.compute.resource_tracker import ResourceTracker
from novalite.compute.rpcapi import ComputeAPI
from novalite.conductor.rpcapi import ComputeTaskAPI, ConductorAPI
from novalite.conf import CONF
from novalite.context import RequestContext, get_admin_context
from novalite.db.models import utcnow
from novalite.locks import KeyedLocks
from novalite.manager import Manager
from novalite.objects.instance import Instance
from novalite.objects.request_spec import FilterProperties, RequestSpec, Selection
from novalite.periodic import periodic_task
from novalite.rpc import Target
from novalite.scheduler.client import report
from novalite.scheduler.rpcapi import SchedulerAPI
from novalite.virt import driver as virt_driver

LOG = logging.getLogger(__name__)

BUILD_EVENT = "compute__do_build_and_run_instance"
TERMINATE_EVENT = "compute_terminate_instance"
STOP_EVENT = "compute_stop_instance"
START_EVENT = "compute_start_instance"
REBOOT_EVENT = "compute_reboot_instance"
PAUSE_EVENT = "compute_pause_instance"
UNPAUSE_EVENT = "compute_unpause_instance"
SUSPEND_EVENT = "compute_suspend_instance"
RESUME_EVENT = "compute_resume_instance"
_GONE = (exception.InstanceNotFound, exception.UnexpectedDeletingTaskStateError)
# The instance action recorded when a step at service start runs an action again.
_RERUN_ACTIONS = {host_boot.Step.DELETE: "delete", host_boot.Step.STOP: "stop",
                  host_boot.Step.START: "start", host_boot.Step.REBOOT: "reboot"}


def _resources_interval() -> float:
    return CONF.update_resources_interval or 60


def _sync_power_interval() -> float:
    return CONF.sync_power_state_interval or 60


def _fault_message(exc: BaseException) -> str:
    if isinstance(exc, exception.NovaliteException):
        return exc.format_message()
    return str(exc) or type(exc).__name__


class ComputeManager(Manager):
    target = Target(version="1.2")

    def __init__(self, host: str, driver_name: str | None = None) -> None:
        super().__init__(host)
        self.driver = virt_driver.load_driver(driver_name or CONF.compute_driver)
        self.conductor = ConductorAPI()
        self.compute_task = ComputeTaskAPI()
        self.scheduler = SchedulerAPI()
        self.compute_rpc = ComputeAPI()
        self.rt = ResourceTracker(host, self.driver, self.conductor)
        self._locks = KeyedLocks()
        self._failed_by_policy: set[str] = set()  # builds a server group policy stopped
        limit = CONF.max_concurrent_builds
        self._build_semaphore = (threading.BoundedSemaphore(limit) if limit
                                 else contextlib.nullcontext())
        self._lifecycle_events = self._event_executor()

    def init_host(self) -> None:
        self.driver.init_host(self.host)
        self.driver.register_event_listener(self._queue_lifecycle_event)
        ctx = get_admin_context()
        try:
            mine = self.conductor.instance_get_all_by_host(ctx, self.host)
        except Exception:
            LOG.exception("Could not list the instances of %s to recover them", self.host)
            return
        for instance in mine:
            try:
                self._init_instance(ctx, instance)
            except Exception:
                LOG.exception("Recovering instance %s on start failed", instance.uuid)

    def cleanup_host(self) -> None:
        self.driver.register_event_listener(None)
        self.driver.cleanup_host(self.host)
        self._lifecycle_events.shutdown(wait=True)
        self._lifecycle_events = self._event_executor()  # for a later init_host

    def _event_executor(self) -> ThreadPoolExecutor:
        """Lifecycle events are handled here, one at a time, never on the driver's thread
        (which may be reading a QMP socket); the thread starts with the first event."""
        return ThreadPoolExecutor(1, f"lifecycle-{self.host}")

    def post_start_hook(self) -> None:
        self.rt.service_id = self.service_id
        ctx = get_admin_context()
        self.rt.update_available_resource(ctx)
        if CONF.filter_scheduler.track_instance_changes:
            self.scheduler.update_instance_info(ctx, self.host, self.rt.instance_uuids())

    @periodic_task(spacing=_resources_interval)
    def update_available_resource(self, ctx: RequestContext) -> None:
        self.rt.update_available_resource(ctx)

    @periodic_task(spacing=lambda: CONF.scheduler_instance_sync_interval)
    def sync_scheduler_instance_info(self, ctx: RequestContext) -> None:
        """Catches a lost update or delete message (the schedulers compare lists)."""
        if CONF.filter_scheduler.track_instance_changes:
            self.scheduler.sync_instance_info(ctx, self.host, self.rt.instance_uuids())

    def _update(self, ctx: RequestContext, instance: Instance, expected: list | None,
                **values) -> Instance:
        """Guarded update; `expected=None` means "whatever the task state is"."""
        return self.conductor.instance_update(ctx, instance.uuid, values,
                                              expected_task_state=expected,
                                              check_task_state=expected is not None)

    # --- build -----------------------------------------------------------------------

    def build_and_run_instance(self, ctx: RequestContext, instance: Instance,
                               request_spec: RequestSpec, filter_properties: FilterProperties,
                               host_list: list[Selection], node: str) -> None:
        with self._build_semaphore, self._locks(instance.uuid):
            self.conductor.action_event_start(ctx, instance.uuid, BUILD_EVENT, self.host)
            result = self._do_build(ctx, instance, request_spec, filter_properties,
                                    host_list, node)
            LOG.info("Build of instance %s on %s: %s", instance.uuid, self.host, result)
            self._count_build(ctx, instance.uuid, node, result)

    def _count_build(self, ctx: RequestContext, instance_uuid: str, node: str,
                     result: str) -> None:
        """As Nova's build results: a build that went active resets the node's count of
        builds failed in a row; any other outcome but a server group policy violation
        adds one (with [compute] consecutive_build_service_disable_threshold set). The
        count reaches the schedulers' BuildFailureWeigher as the node stat
        `failed_builds`."""
        failed: bool | None = result != "active"
        if instance_uuid in self._failed_by_policy:
            self._failed_by_policy.discard(instance_uuid)
            failed = None
        elif failed and not CONF.compute.consecutive_build_service_disable_threshold:
            failed = None
        self.rt.build_finished(ctx, node, instance_uuid, failed)

    def _do_build(self, ctx: RequestContext, instance: Instance, spec: RequestSpec,
                  props: FilterProperties, host_list: list[Selection], node: str) -> str:
        try:
            instance = self._update(ctx, instance, [states.SCHEDULING], task_state=None)
        except _GONE:
            return "skipped: deleted before the build started"
        spawned = False
        try:
            self.rt.instance_claim(ctx, instance, node)
            server_groups.validate_placement(self.conductor, ctx, spec, instance.uuid,
                                             self.host)
            instance = self._update(ctx, instance, [None], task_state=states.SPAWNING)
            self.driver.spawn(ctx, instance, spec.image)
            spawned = True
            self._update(ctx, instance, [states.SPAWNING], vm_state=states.ACTIVE,
                         task_state=None, power_state=states.RUNNING, launched_at=utcnow())
        except _GONE:
            self._undo(ctx, instance, spawned)
            return "aborted: deleted during the build"
        except exception.BuildAbortException as exc:
            self._undo(ctx, instance, spawned)
            self._fail(ctx, instance, exc)
            return f"aborted: {exc}"
        except Exception as exc:
            self._undo(ctx, instance, spawned)
            if isinstance(exc, exception.GroupAffinityViolation):
                self._failed_by_policy.add(instance.uuid)
            return self._reschedule(ctx, instance, spec, props, host_list, exc)
        self.conductor.action_event_finish(ctx, instance.uuid, BUILD_EVENT, "Success")
        if CONF.filter_scheduler.track_instance_changes:
            self.scheduler.update_instance_info(ctx, self.host, [instance.uuid])
        return "active"

    def _undo(self, ctx: RequestContext, instance: Instance, spawned: bool) -> None:
        if spawned:
            self.driver.destroy(ctx, instance)
        self.rt.release(ctx, instance.uuid)

    def _reschedule(self, ctx: RequestContext, instance: Instance, spec: RequestSpec,
                    props: FilterProperties, host_list: list[Selection], exc: Exception
                    ) -> str:
        reason = exc.format_message() if isinstance(exc, exception.NovaliteException) \
            else f"{type(exc).__name__}: {exc}"
        if CONF.scheduler.max_attempts <= 1:
            self._fail(ctx, instance, exc)
            return f"failed: {reason}"
        try:
            self._update(ctx, instance, [None, states.SPAWNING], host=None, node=None,
                         task_state=states.SCHEDULING)
        except _GONE:
            return "aborted: deleted during the build"
        self.conductor.action_event_finish(ctx, instance.uuid, BUILD_EVENT, "Error",
                                           "".join(traceback.format_exception(exc)))
        props.last_error = reason
        # Free this host's claim first, so the conductor can claim an alternate's.
        report.free_allocations(ctx, instance.uuid)
        self.compute_task.build_instances(ctx, instance.uuid, spec, props, host_list)
        return f"rescheduled: {reason}"

    def _fail(self, ctx: RequestContext, instance: Instance, exc: Exception) -> None:
        """ERROR with a fault, the fault first (see BuildTasks.bury)."""
        tb = "".join(traceback.format_exception(exc))
        self.conductor.instance_fault_create(ctx, instance.uuid, 500, _fault_message(exc), tb,
                                             self.host)
        report.free_allocations(ctx, instance.uuid)
        with contextlib.suppress(*_GONE):
            self._update(ctx, instance, None, vm_state=states.ERROR, task_state=None,
                         **{"host": None, "node": None})
        self.conductor.action_event_finish(ctx, instance.uuid, BUILD_EVENT, "Error", tb)

    # --- delete ----------------------------------------------------------------------

    def terminate_instance(self, ctx: RequestContext, instance: Instance) -> None:
        with self._locks(instance.uuid):
            self.conductor.action_event_start(ctx, instance.uuid, TERMINATE_EVENT, self.host)
            self.driver.destroy(ctx, instance)
            self.rt.release(ctx, instance.uuid)
            report.free_allocations(ctx, instance.uuid)
            with contextlib.suppress(exception.InstanceNotFound):
                self.conductor.instance_destroy(ctx, instance.uuid)
            self.conductor.action_event_finish(ctx, instance.uuid, TERMINATE_EVENT, "Success")
        if CONF.filter_scheduler.track_instance_changes:
            self.scheduler.delete_instance_info(ctx, self.host, instance.uuid)
        LOG.info("Deleted instance %s on %s", instance.uuid, self.host)

    # --- power -----------------------------------------------------------------------

    def stop_instance(self, ctx: RequestContext, instance: Instance,
                      clean_shutdown: bool = True) -> None:
        with self._locks(instance.uuid), self._tracked(ctx, instance, STOP_EVENT):
            expected: list[str | None] = [states.POWERING_OFF]
            if self._power_state(instance) in states.POWERED_OFF:
                expected.append(None)  # already off: a racing sync may have settled it
            timeout, retry = ((CONF.shutdown_timeout, CONF.compute.shutdown_retry_interval)
                              if clean_shutdown else (0, 0))
            self.driver.power_off(instance, timeout, retry)
            self._update(ctx, instance, expected, vm_state=states.STOPPED, task_state=None,
                         power_state=self._power_state(instance))

    def start_instance(self, ctx: RequestContext, instance: Instance) -> None:
        with self._locks(instance.uuid), self._tracked(ctx, instance, START_EVENT):
            self.driver.power_on(ctx, instance)
            self._update(ctx, instance, [states.POWERING_ON], vm_state=states.ACTIVE,
                         task_state=None, power_state=self._power_state(instance))

    def reboot_instance(self, ctx: RequestContext, instance: Instance,
                        reboot_type: str) -> None:
        with self._locks(instance.uuid), self._tracked(ctx, instance, REBOOT_EVENT):
            self._reboot(ctx, instance, reboot_type)

    def _reboot(self, ctx: RequestContext, instance: Instance, reboot_type: str) -> None:
        """As Nova: a reboot that fails with the guest still running is only a fault; one
        that leaves it down puts the instance in ERROR."""
        soft = reboot_type == "SOFT"
        instance = self._update(
            ctx, instance, list(states.SOFT_REBOOT_STATES if soft else states.HARD_REBOOT_STATES),
            task_state=states.REBOOT_STARTED if soft else states.REBOOT_STARTED_HARD,
            power_state=self._power_state(instance))
        try:
            self.driver.reboot(ctx, instance, reboot_type)
        except Exception as exc:
            if self._power_state(instance) != states.RUNNING:
                with contextlib.suppress(exception.InstanceNotFound):
                    self._update(ctx, instance, None, vm_state=states.ERROR)
                raise
            LOG.warning("Reboot of instance %s failed but it is running: %s", instance.uuid, exc)
            self.conductor.instance_fault_create(ctx, instance.uuid, 500, _fault_message(exc),
                                                 "".join(traceback.format_exception(exc)),
                                                 self.host)
        vm_state = states.RESCUED if instance.vm_state == states.RESCUED else states.ACTIVE
        self._update(ctx, instance, None, vm_state=vm_state, task_state=None,
                     power_state=self._power_state(instance))

    def pause_instance(self, ctx: RequestContext, instance: Instance) -> None:
        self._power_action(ctx, instance, PAUSE_EVENT, self.driver.pause,
                           states.PAUSING, states.PAUSED)

    def unpause_instance(self, ctx: RequestContext, instance: Instance) -> None:
        self._power_action(ctx, instance, UNPAUSE_EVENT, self.driver.unpause,
                           states.UNPAUSING, states.ACTIVE)

    def suspend_instance(self, ctx: RequestContext, instance: Instance) -> None:
        self._power_action(ctx, instance, SUSPEND_EVENT,
                           lambda inst: self.driver.suspend(ctx, inst),
                           states.SUSPENDING, states.SUSPENDED)

    def resume_instance(self, ctx: RequestContext, instance: Instance) -> None:
        self._power_action(ctx, instance, RESUME_EVENT,
                           lambda inst: self.driver.resume(ctx, inst),
                           states.RESUMING, states.ACTIVE)

    def _power_action(self, ctx: RequestContext, instance: Instance, event: str,
                      act: Callable[[Instance], None], task_state: str, vm_state: str
                      ) -> None:
        """Run a driver action the API claimed with `task_state`; on success the instance
        rests in `vm_state` with the power state the hypervisor now reports. A failure
        (see _tracked) leaves the vm_state as it was, with a fault."""
        with self._locks(instance.uuid), self._tracked(ctx, instance, event):
            act(instance)
            self._update(ctx, instance, [task_state], vm_state=vm_state, task_state=None,
                         power_state=self._power_state(instance))

    def get_console_output(self, ctx: RequestContext, instance: Instance,
                           tail_length: int | None = None) -> str:
        """The guest's console, its last `tail_length` lines only if that is 0 or more
        (Nova's -1 and None mean all of it)."""
        try:
            output = self.driver.get_console_output(ctx, instance)
        except NotImplementedError:
            raise exception.ConsoleNotAvailable() from None
        if tail_length is None or tail_length < 0:
            return output
        lines = output.splitlines(keepends=True)
        return "".join(lines[-tail_length:]) if tail_length else ""

    def _power_state(self, instance: Instance) -> int:
        try:
            return self.driver.get_info(instance).state
        except exception.InstanceNotFound:
            return states.NOSTATE

    @contextlib.contextmanager
    def _tracked(self, ctx: RequestContext, instance: Instance, event: str) -> Iterator[None]:
        """Nova's wrap_instance_event, wrap_instance_fault and reverts_task_state in one:
        the event records the outcome, and a failure leaves a fault and no task state, so
        the instance is never stuck mid-action. A task state someone else changed is
        theirs: it is left as it is."""
        self.conductor.action_event_start(ctx, instance.uuid, event, self.host)
        try:
            yield
        except Exception as exc:
            LOG.exception("%s failed for instance %s", event, instance.uuid)
            tb = "".join(traceback.format_exception(exc))
            if not isinstance(exc, exception.UnexpectedTaskStateError):
                with contextlib.suppress(exception.InstanceNotFound):
                    # the fault first: whoever sees the task state cleared sees the fault
                    self.conductor.instance_fault_create(ctx, instance.uuid, 500,
                                                         _fault_message(exc), tb, self.host)
                    self._update(ctx, instance, None, task_state=None)
            self.conductor.action_event_finish(ctx, instance.uuid, event, "Error", tb)
        else:
            self.conductor.action_event_finish(ctx, instance.uuid, event, "Success")

    # --- power state sync ------------------------------------------------------------

    @periodic_task(spacing=_sync_power_interval, run_immediately=True)
    def _sync_power_states(self, ctx: RequestContext) -> None:
        """Align the recorded power states of this host's instances with the hypervisor."""
        db_instances = self.conductor.instance_get_all_by_host(ctx, self.host)
        on_hypervisor = len(self.driver.list_instances())
        if on_hypervisor != len(db_instances):
            LOG.warning("While synchronizing instance power states, found %d instances in "
                        "the database and %d on the hypervisor", len(db_instances),
                        on_hypervisor)
        for instance in db_instances:
            try:
                self._sync_instance_power_state(ctx, instance)
            except Exception:
                LOG.exception("Power state sync of instance %s failed", instance.uuid)

    def _sync_instance_power_state(self, ctx: RequestContext, instance: Instance) -> None:
        if instance.task_state is not None:
            return  # an action under way will set the power state itself
        # a deleted instance, or an action that claims it meanwhile, ends this sync's say
        with self._locks(instance.uuid), contextlib.suppress(exception.InstanceNotFound,
                                                             exception.UnexpectedTaskStateError):
            vm_power_state = self._power_state(instance)
            instance = self.conductor.instance_get(ctx, instance.uuid)
            if instance.host != self.host or instance.task_state is not None:
                return
            if vm_power_state != instance.power_state:
                LOG.info("Instance %s: power state %s in the database, %s on the hypervisor; "
                         "taking the hypervisor's", instance.uuid, instance.power_state,
                         vm_power_state)
                instance = self._update(ctx, instance, [None], power_state=vm_power_state)
            verdict = power_sync.reconcile(instance.vm_state, vm_power_state)
            if verdict.note:
                LOG.warning("Instance %s: %s", instance.uuid, verdict.note)
            if verdict.stop:
                self._stop_from_sync(ctx, instance)

    def _stop_from_sync(self, ctx: RequestContext, instance: Instance) -> None:
        """Stop through the stop path, as the API would: claim the task state, record the
        action, cast stop_instance (it runs once this sync lets go of the instance)."""
        instance = self._update(ctx, instance, [None], task_state=states.POWERING_OFF,
                                progress=0)
        self.conductor.action_start(ctx, instance.uuid, "stop")
        self.compute_rpc.stop_instance(ctx, self.host, instance)

    # --- lifecycle events ------------------------------------------------------------

    def _queue_lifecycle_event(self, event: virt_driver.LifecycleEvent) -> None:
        """The driver's listener: hand the event to this manager's own thread."""
        try:
            self._lifecycle_events.submit(self._handle_lifecycle_event, event)
        except RuntimeError:  # an event racing cleanup_host: the next start's sync catches up
            LOG.info("Lifecycle event %s dropped: the service is stopping", event)

    def _handle_lifecycle_event(self, event: virt_driver.LifecycleEvent) -> None:
        """Sync that one instance's power state now rather than at the next periodic sync
        (Nova's handle_lifecycle_event); the sync asks the driver afresh, so an event
        that arrives late cannot undo a newer state."""
        LOG.info("Instance %s: lifecycle event %s", event.instance_uuid, event.transition)
        ctx = get_admin_context()
        try:
            instance = self.conductor.instance_get(ctx, event.instance_uuid)
            self._sync_instance_power_state(ctx, instance)
        except exception.InstanceNotFound:
            LOG.debug("Lifecycle event for instance %s, which is gone", event.instance_uuid)
        except Exception:
            LOG.exception("Handling lifecycle event %s failed", event)

    # --- service start ---------------------------------------------------------------

    def _init_instance(self, ctx: RequestContext, instance: Instance) -> None:
        """Finish or undo what the instance was doing when this service last stopped
        (novalite.compute.host_boot decides what)."""
        power = self._power_state(instance)
        plan = host_boot.plan(instance.vm_state, instance.task_state, instance.power_state,
                              power, CONF.resume_guests_state_on_host_boot)
        if plan.step is host_boot.Step.NOTHING:
            return
        LOG.info("Instance %s in vm_state %s, task_state %s, power state %s on start: %s",
                 instance.uuid, instance.vm_state, instance.task_state, power,
                 plan.step.value)
        step = plan.step
        if step in _RERUN_ACTIONS:  # the API's action is another request's: record ours
            self.conductor.action_start(ctx, instance.uuid, _RERUN_ACTIONS[step])
        if step is host_boot.Step.ERROR:
            self._update(ctx, instance, None, vm_state=states.ERROR, task_state=None,
                         power_state=power)
        elif step is host_boot.Step.DELETE:
            self.terminate_instance(ctx, instance)
        elif step is host_boot.Step.STOP:
            self.stop_instance(ctx, instance)
        elif step is host_boot.Step.START:
            self.start_instance(ctx, instance)
        elif step is host_boot.Step.REBOOT:
            soft = plan.reboot_type == "SOFT"
            instance = self._update(ctx, instance, [instance.task_state], task_state=(
                states.REBOOT_PENDING if soft else states.REBOOT_PENDING_HARD))
            self.reboot_instance(ctx, instance, plan.reboot_type)
        elif step is host_boot.Step.SETTLE:
            self._update(ctx, instance, [instance.task_state], task_state=None,
                         power_state=power, vm_state=host_boot.VM_STATE_OF_POWER.get(
                             power, instance.vm_state))
        elif step is host_boot.Step.RESUME_GUEST:
            self._resume_guest(ctx, instance)

    def _resume_guest(self, ctx: RequestContext, instance: Instance) -> None:
        """Bring back a guest the host lost (it was running); as Nova, an instance whose
        guest cannot be brought back is in ERROR."""
        try:
            self.driver.resume_state_on_host_boot(ctx, instance)
        except NotImplementedError:
            LOG.warning("The %s driver cannot resume guests on host boot",
                        type(self.driver).__name__)
            return
        except Exception:
            LOG.exception("Resuming the guest of instance %s failed", instance.uuid)
            self._update(ctx, instance, None, vm_state=states.ERROR)
            return
        self._update(ctx, instance, [None], power_state=self._power_state(instance))
