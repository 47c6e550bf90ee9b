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
import dataclasses
import datetime
import logging
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from novalite import exception
from novalite.clients import glance
from novalite.clients import placement as placement_client
from novalite.compute import group_policy, host_boot, neutron, power_sync, resource_tracker
from novalite.compute.console_steps import ConsoleSteps
from novalite.compute.interface_steps import InterfaceSteps, image_meta
from novalite.compute.live_moves import LiveMoveSteps
from novalite.compute.resource_tracker import Held, NodeWrite, ResourceTracker
from novalite.compute.rpcapi import ComputeAPI
from novalite.compute.running_deleted import RunningDeletedCleanup
from novalite.compute.volume_snapshot_steps import VolumeSnapshotSteps
from novalite.compute.volume_steps import VolumeSteps
from novalite.compute.wrapping import BuildResult, tracked, tracked_build
from novalite.conductor.rpcapi import ComputeTaskAPI, ConductorAPI
from novalite.conf import CONF
from novalite.context import RequestContext, get_admin_context
from novalite.exception import fault_message, format_tb
from novalite.locks import KeyedLocks
from novalite.notifications import instance_action
from novalite.objects import states
from novalite.objects.diagnostics import Diagnostics
from novalite.objects.image import ImageMeta
from novalite.objects.instance import Instance
from novalite.objects.migration import Migration
from novalite.objects.network_info import in_order, with_tags
from novalite.objects.request_spec import FilterProperties, RequestSpec, Selection
from novalite.periodic import periodic_task
from novalite.rpc import Target, ack_when_done
from novalite.scheduler.rpcapi import SchedulerAPI
from novalite.service.manager import Manager
from novalite.timeutils import utcnow
from novalite.virt import driver as virt_driver

LOG = logging.getLogger(__name__)

BUILD_EVENT = "compute__do_build_and_run_instance"
TERMINATE_EVENT = "compute_terminate_instance"
SOFT_DELETE_EVENT = "compute_soft_delete_instance"
RESTORE_EVENT = "compute_restore_instance"
STOP_EVENT = "compute_stop_instance"
START_EVENT = "compute_start_instance"
REBOOT_EVENT = "compute_reboot_instance"
PAUSE_EVENT = "compute_pause_instance"
UNPAUSE_EVENT = "compute_unpause_instance"
SUSPEND_EVENT = "compute_suspend_instance"
RESUME_EVENT = "compute_resume_instance"
CRASH_DUMP_EVENT = "compute_trigger_crash_dump"
SET_PASSWORD_EVENT = "compute_set_admin_password"
POWER_UPDATE_EVENT = "compute_power_update"
REBUILD_EVENT = "compute_rebuild_instance"
RESCUE_EVENT = "compute_rescue_instance"
SNAPSHOT_EVENT = "compute_snapshot_instance"
BACKUP_EVENT = "compute_backup_instance"
SHELVE_EVENT = "compute_shelve_instance"
SHELVE_OFFLOAD_EVENT = "compute_shelve_offload_instance"
UNSHELVE_EVENT = "compute_unshelve_instance"
# What a shelve remembers in the instance's system metadata (Nova's keys).
SHELVED_KEYS = ("shelved_at", "shelved_image_id", "shelved_host")
# A snapshot's task states as a shelve names them.
_SHELVE_STEPS = {states.IMAGE_SNAPSHOT: states.SHELVING,
                 states.IMAGE_PENDING_UPLOAD: states.SHELVING_IMAGE_PENDING_UPLOAD,
                 states.IMAGE_UPLOADING: states.SHELVING_IMAGE_UPLOADING}
UNRESCUE_EVENT = "compute_unrescue_instance"
_GONE = (exception.InstanceNotFound, exception.UnexpectedDeletingTaskStateError)
# The instance action recorded when a step at service start runs an action again.
_RERUN_ACTIONS = {host_boot.Step.DELETE: "delete", host_boot.Step.STOP: "stop",
                  host_boot.Step.START: "start", host_boot.Step.REBOOT: "reboot"}
InitHandler = Callable[[RequestContext, Instance, host_boot.Plan, int], None]


def _resources_interval() -> float:
    return CONF.update_resources_interval or 60


def _held_by_hosts(ctx: RequestContext, managers: list[ComputeManager]) -> list[Held]:
    """The hosts of one process whose resource updates come due together (they started
    together) read what they hold in two queries, not two each."""
    return resource_tracker.read_held(ctx, [manager.rt for manager in managers])


def _placed_on_hosts(ctx: RequestContext, managers: list[ComputeManager]
                     ) -> list[list[Instance]]:
    placed = managers[0].conductor.instance_get_all_by_hosts(ctx, [m.host for m in managers])
    return [placed.get(manager.host, []) for manager in managers]


def _sync_power_interval() -> float:
    return CONF.sync_power_state_interval or 60


def _reboot_pending(instance: Instance, reboot_type: str) -> Instance:
    """The instance as reboot.start shows it: Nova's compute takes the reboot in its
    pending state (reboot_pending, reboot_pending_hard) and notifies with it."""
    return dataclasses.replace(instance, task_state=states.REBOOT_PENDING
                               if reboot_type == "SOFT" else states.REBOOT_PENDING_HARD)


class ComputeManager(RunningDeletedCleanup, LiveMoveSteps, VolumeSteps, InterfaceSteps,
                     ConsoleSteps, VolumeSnapshotSteps, Manager):
    """Resize and cold migration steps come from MoveSteps (novalite.compute.moves), live
    migration steps from LiveMoveSteps (novalite.compute.live_moves), the reaping of
    deleted servers' guests from RunningDeletedCleanup (novalite.compute.running_deleted),
    attaching and detaching volumes from VolumeSteps (novalite.compute.volume_steps),
    interfaces from InterfaceSteps (novalite.compute.interface_steps), the guest's tagged
    devices from its DeviceTagSteps (novalite.compute.device_tags), remote consoles from
    ConsoleSteps (novalite.compute.console_steps), assisted volume snapshots from
    VolumeSnapshotSteps (novalite.compute.volume_snapshot_steps)."""

    target = Target(version="1.30")

    def __init__(self, host: str, driver_name: str | None = None,
                 driver_args: dict[str, str] | None = None) -> None:
        super().__init__(host)
        self.driver = virt_driver.load_driver(driver_name or CONF.compute_driver,
                                              **(driver_args or {}))
        self.conductor = ConductorAPI()
        self.compute_task = ComputeTaskAPI()
        self.scheduler = SchedulerAPI()
        self.compute_rpc = ComputeAPI()
        self.network_api = neutron.API()
        self.rt = ResourceTracker(host, self.driver, self.conductor)
        self._locks = KeyedLocks()
        self._failed_by_policy: set[str] = set()  # builds a server group policy stopped
        # (instances, moves) of this host read by prefetch_start, until init_host
        self._at_start: tuple[list[Instance], list[Migration]] | None = None
        self._idle_at_start = False
        self._building: set[str] = set()  # builds this service is running now
        limit = CONF.max_concurrent_builds
        self._build_semaphore: contextlib.AbstractContextManager[Any] = (
            threading.BoundedSemaphore(limit) if limit else contextlib.nullcontext())
        self._lifecycle_events = self._event_executor()
        self._init_steps: dict[host_boot.Step, InitHandler] = {
            host_boot.Step.ERROR: self._init_interrupted_build,
            host_boot.Step.DELETE: self._init_delete,
            host_boot.Step.STOP: self._init_stop,
            host_boot.Step.START: self._init_start,
            host_boot.Step.REBOOT: self._init_reboot,
            host_boot.Step.SETTLE: self._init_settle,
            host_boot.Step.RESUME_GUEST: self._init_resume_guest,
            host_boot.Step.REVERT_MOVE: self._init_interrupted_move,
            host_boot.Step.REVERT_LANDING: self._init_interrupted_landing,
            host_boot.Step.FAIL_IN_PLACE: self._init_failed_in_place,
            host_boot.Step.CLEAR_TASK: self._init_clear_task,
            host_boot.Step.END_LIVE_MIGRATION: self._init_interrupted_live_migration,
        }

    @classmethod
    def prefetch_start(cls, managers: list[Manager]) -> None:
        """The instances and moves of all these hosts in two calls: most hosts of a big
        simulated cloud have neither, and then init_host and the first resource update
        need not ask (a third of each host's start)."""
        computes = [m for m in managers if isinstance(m, ComputeManager)]
        if not computes:
            return
        held = resource_tracker.read_held(get_admin_context(), [m.rt for m in computes])
        for manager, found in zip(computes, held, strict=True):
            manager._at_start = (found.instances, found.migrations)

    def init_host(self) -> None:
        self.driver.init_host(self.host)
        self.driver.register_event_listener(self._queue_lifecycle_event)
        ctx = get_admin_context()
        prefetched, self._at_start = self._at_start, None
        # a host with neither: nothing to recover, and nothing for the first resource
        # update or power sync to read
        self._idle_at_start = prefetched == ([], [])
        try:
            self._destroy_evacuated_instances(ctx, prefetched[1] if prefetched else None)
        except Exception:
            LOG.exception("Could not clean up the servers evacuated from %s", self.host)
        try:
            mine = prefetched[0] if prefetched else self.conductor.instance_get_all_by_host(
                ctx, self.host)
        except Exception:
            LOG.exception("Could not list the instances of %s to recover them", self.host)
            return
        for instance in mine:
            try:
                self._init_volumes(ctx, instance)
            except Exception:
                LOG.exception("Recovering the volumes of instance %s on start failed",
                              instance.uuid)
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

    def pre_start_hook(self, writes: list[NodeWrite] | None = None) -> None:
        """The nodes known before the first build is taken: one taken earlier found none
        and was rescheduled (every build queued for a compute while it restarted).
        `writes`: where to leave the node records for pre_start_together to write."""
        self.rt.service_id = self.service_id
        self.rt.disabled = self.service_disabled
        self.rt.new_host = self.service_new
        self.rt.update_available_resource(
            get_admin_context(), self.rt.nothing_held() if self._idle_at_start else None,
            writes)

    @classmethod
    def pre_start_together(cls, managers: list[Manager]) -> None:
        """The node records of all these hosts in one call, before any of them takes a
        build (a sixth of each host's start when written one by one)."""
        computes = [m for m in managers if isinstance(m, ComputeManager)]
        writes: list[NodeWrite] = []
        for manager in computes:
            manager.pre_start_hook(writes)
        if writes:
            computes[0].conductor.compute_node_save_many(
                get_admin_context(), [(w.node, w.service_id) for w in writes])
        for write in writes:
            write.tracker.node_written(write)

    def post_start_hook(self) -> None:
        if CONF.filter_scheduler.track_instance_changes:
            self.scheduler.update_instance_info(get_admin_context(), self.host,
                                                self.rt.instance_uuids())

    def set_host_enabled(self, ctx: RequestContext, enabled: bool) -> None:
        """The service was enabled or disabled (os-services): say so to placement."""
        self.rt.set_disabled(ctx, not enabled)

    def get_host_uptime(self, ctx: RequestContext) -> str:
        """For os-hypervisors uptime; a driver without it answers Nova's 501."""
        try:
            return self.driver.get_host_uptime()
        except NotImplementedError:
            raise exception.FeatureNotSupported() from None

    def cache_images(self, ctx: RequestContext, image_ids: list[str]) -> dict[str, str]:
        """Each image into this host's cache, one after the other: {image id: "cached"
        (downloaded now), "existing", "unsupported" (a driver without a cache) or
        "error"}, as Nova's compute answers its conductor."""
        found: dict[str, str] = {}
        for image_id in image_ids:
            try:
                found[image_id] = "cached" if self.driver.cache_image(ctx, image_id) \
                    else "existing"
            except NotImplementedError:
                found[image_id] = "unsupported"
            except Exception:
                LOG.exception("Could not cache image %s", image_id)
                found[image_id] = "error"
        return found

    @periodic_task(spacing=_resources_interval, prefetch=_held_by_hosts)
    def update_available_resource(self, ctx: RequestContext, held: Held | None = None) -> None:
        self.rt.update_available_resource(ctx, held)

    @periodic_task(spacing=lambda: CONF.scheduler_instance_sync_interval)
    def sync_scheduler_instance_info(self, ctx: RequestContext) -> None:
        """Catches a lost update or delete message (the schedulers compare lists)."""
        if CONF.filter_scheduler.track_instance_changes:
            self.scheduler.sync_instance_info(ctx, self.host, self.rt.instance_uuids())

    def _update(self, ctx: RequestContext, instance: Instance, expected: list | None,
                expected_host: str | None = None, starts_event: str | None = None,
                ends_event: str | None = None, **values) -> Instance:
        """Guarded update; `expected=None` means "whatever the task state is". The
        action event it starts or ends (see ConductorAPI.instance_update) commits with
        it."""
        updated = self.conductor.instance_update(ctx, instance.uuid, values,
                                                 expected_task_state=expected,
                                                 check_task_state=expected is not None,
                                                 expected_host=expected_host,
                                                 starts_event=starts_event,
                                                 ends_event=ends_event)
        instance_action.updated(ctx, instance, updated, self.host)  # instance.update
        return updated

    # --- build -----------------------------------------------------------------------

    @ack_when_done
    def build_and_run_instance(self, ctx: RequestContext, instance: Instance,
                               request_spec: RequestSpec, filter_properties: FilterProperties,
                               host_list: list[Selection], node: str) -> None:
        """Acknowledged once handled: the builds a killed compute had taken from its
        queue but not started come back to it when it restarts, rather than waiting for
        the build watchdog. A build it had started is ended by its init_host (ERROR with
        a fault, as Nova's), and one it finished or handed back for a reschedule is no
        longer SCHEDULING on this host: _take_build finds either taken."""
        self._building.add(instance.uuid)
        try:
            result = self._build(ctx, instance, request_spec, filter_properties, host_list,
                                 node)
        finally:
            self._building.discard(instance.uuid)
        LOG.info("Build of instance %s on %s: %s", instance.uuid, self.host, result.value)
        if result is not BuildResult.DUPLICATE:  # the first delivery counted
            self._count_build(ctx, instance.uuid, node, result)

    @periodic_task(spacing=lambda: 60 if CONF.instance_build_timeout else 0)
    def _check_instance_build_time(self, ctx: RequestContext) -> None:
        """Nova's instance_build_timeout: an instance in BUILD on this host for longer is
        put in ERROR with a fault, its guest (if one was made) destroyed and its claim and
        host given back; a build this service is running right now is left to finish or
        fail by itself."""
        cutoff = utcnow() - datetime.timedelta(seconds=CONF.instance_build_timeout)
        for instance in self.conductor.instance_get_all_by_host(ctx, self.host):
            if (instance.vm_state != states.BUILDING or instance.uuid in self._building
                    or instance.created_at is None or instance.created_at > cutoff):
                continue
            with self._locks(instance.uuid), contextlib.suppress(
                    *_GONE, exception.UnexpectedTaskStateError):
                LOG.warning("Instance %s: build timed out", instance.uuid)
                # the fault first (shown only once in ERROR), then the guarded ERROR
                self.conductor.instance_fault_create(
                    ctx, instance.uuid, 500, "Instance build timed out. Set to error state.",
                    None, self.host)
                self._update(ctx, instance, [instance.task_state], vm_state=states.ERROR,
                             task_state=None, host=None, node=None)
                with contextlib.suppress(Exception):
                    self.driver.destroy(ctx, instance)
                self.rt.release(ctx, instance.uuid)
                placement_client.free_allocations(ctx, instance.uuid)

    def _count_build(self, ctx: RequestContext, instance_uuid: str, node: str,
                     result: BuildResult) -> None:
        """As Nova's build results: a build that went active resets the node's count of
        builds failed in a row; any other outcome but a server group policy violation
        adds one (with [compute] consecutive_build_service_disable_threshold set). The
        count reaches the schedulers' BuildFailureWeigher as the node stat
        `failed_builds`."""
        failed: bool | None = result is not BuildResult.ACTIVE
        if instance_uuid in self._failed_by_policy:
            self._failed_by_policy.discard(instance_uuid)
            failed = None
        elif failed and not CONF.compute.consecutive_build_service_disable_threshold:
            failed = None
        self.rt.build_finished(ctx, node, instance_uuid, failed)

    def _take_build(self, ctx: RequestContext, instance: Instance, event: str
                    ) -> Instance | BuildResult:
        """Take the build: out of SCHEDULING, on this host, in one guarded update that
        also starts the build's action event. A build sent twice (a conductor died
        before its message was acknowledged, and its successor sent it again) is taken
        once: the second finds it taken (here, or on the host a reschedule chose after
        a failure here) and does nothing."""
        try:
            return self._update(ctx, instance, [states.SCHEDULING], self.host,
                                starts_event=event, task_state=None)
        except _GONE:
            return BuildResult.SKIPPED
        except exception.UnexpectedTaskStateError:
            return BuildResult.DUPLICATE

    @tracked_build(BUILD_EVENT)
    def _build(self, ctx: RequestContext, instance: Instance, spec: RequestSpec,
               props: FilterProperties, host_list: list[Selection], node: str) -> BuildResult:
        """Claim, spawn, go ACTIVE (the instance taken by _take_build). A failure is
        undone here and raised: tracked_build hands it to _build_failed."""
        spawned = False
        try:
            self.rt.instance_claim(ctx, instance, node)
            group_policy.validate_placement(self.conductor, ctx, spec, instance.uuid,
                                             self.host)
            # each step on this host only: the build watchdog ends a build that stalled
            # (ERROR on no host, its claim freed), and it must not come back ACTIVE
            instance = self._update(ctx, instance, [None], self.host,
                                    task_state=states.SPAWNING)
            self._bind_ports(ctx, instance)
            devices = self._prep_block_devices(ctx, instance)
            self.driver.spawn(ctx, instance, spec.image, block_device_info=devices)
            spawned = True
            self._update(ctx, instance, [states.SPAWNING], self.host, ends_event=BUILD_EVENT,
                         vm_state=states.ACTIVE, task_state=None,
                         power_state=states.RUNNING, launched_at=utcnow(),
                         device_metadata=self._tagged_devices(
                             ctx, instance, {device.serial: device.tag for device in devices}))
        except _GONE:
            self._undo(ctx, instance, spawned)
            return BuildResult.ABORTED
        except exception.VirtualInterfaceCreateException as exc:
            self._undo(ctx, instance, spawned)
            raise exception.BuildAbortException(
                instance_uuid=instance.uuid,
                reason="Failed to allocate the network(s), not rescheduling.") from exc
        except Exception as exc:
            self._undo(ctx, instance, spawned)
            if isinstance(exc, exception.GroupAffinityViolation):
                self._failed_by_policy.add(instance.uuid)
            raise
        if CONF.filter_scheduler.track_instance_changes:
            self.scheduler.update_instance_info(ctx, self.host, [instance.uuid])
        return BuildResult.ACTIVE

    def _bind_ports(self, ctx: RequestContext, instance: Instance) -> None:
        """Bind the instance's ports to this host and cache what the network service
        says of them (a server without ports costs no request)."""
        if not instance.network_info:
            return
        zone = instance.availability_zone or CONF.default_availability_zone
        instance.network_info = with_tags(in_order(
            self.network_api.bind(ctx, instance.uuid, self.host, zone,
                                  instance.preserved_ports()), instance.network_info),
            instance.port_tags())
        self.conductor.instance_info_cache_update(ctx, instance.uuid, instance.network_info)

    def _undo(self, ctx: RequestContext, instance: Instance, spawned: bool) -> None:
        if spawned:
            self.driver.destroy(ctx, instance)
        self._terminate_volume_connections(ctx, instance, lenient=True)
        self.rt.release(ctx, instance.uuid)
        if instance.network_info:  # the next host (or the delete) takes the ports over
            self.network_api.unbind(ctx, instance.uuid)

    def _build_failed(self, ctx: RequestContext, instance: Instance, spec: RequestSpec,
                      props: FilterProperties, host_list: list[Selection], exc: Exception
                      ) -> BuildResult:
        """An aborted build (or one with no attempts left) goes to ERROR with a fault; any
        other failure goes back to the conductor for an alternate host."""
        if (isinstance(exc, exception.BuildAbortException)
                or CONF.scheduler.max_attempts <= 1):
            self._fail(ctx, instance, exc)
            return BuildResult.FAILED
        try:
            self._update(ctx, instance, [None, states.SPAWNING], host=None, node=None,
                         task_state=states.SCHEDULING)
        except _GONE:
            return BuildResult.ABORTED
        props.last_error = (exc.format_message() if isinstance(
            exc, exception.NovaliteException) else f"{type(exc).__name__}: {exc}")
        # Free this host's claim first, so the conductor can claim an alternate's.
        placement_client.free_allocations(ctx, instance.uuid)
        self.compute_task.build_instances(ctx, instance.uuid, spec, props, host_list)
        return BuildResult.RESCHEDULED

    def _fail(self, ctx: RequestContext, instance: Instance, exc: Exception) -> None:
        """ERROR with a fault, the fault first (see the conductor's bury)."""
        self.conductor.instance_fault_create(ctx, instance.uuid, 500, fault_message(exc),
                                             format_tb(exc), self.host)
        placement_client.free_allocations(ctx, instance.uuid)
        with contextlib.suppress(*_GONE):
            self._update(ctx, instance, None, vm_state=states.ERROR, task_state=None,
                         **{"host": None, "node": None})

    def _record_failure(self, ctx: RequestContext, instance: Instance, exc: Exception,
                        error_vm_state: str | None, end_task: bool = True) -> None:
        """A failed action: the fault first (whoever sees the task state cleared sees the
        fault), then, if `end_task`, no task state, and `error_vm_state` if given."""
        values = {"vm_state": error_vm_state} if error_vm_state else {}
        with contextlib.suppress(exception.InstanceNotFound):
            self.conductor.instance_fault_create(ctx, instance.uuid, 500, fault_message(exc),
                                                 format_tb(exc), self.host)
            if end_task:
                self._update(ctx, instance, None, task_state=None, **values)

    # --- delete ----------------------------------------------------------------------

    @tracked(TERMINATE_EVENT, error_vm_state=states.ERROR, notify="delete")
    def terminate_instance(self, ctx: RequestContext, instance: Instance) -> None:
        self.driver.destroy(ctx, instance)
        self._cleanup_volumes(ctx, instance)
        if instance.network_info:
            self.network_api.deallocate_for_instance(ctx, instance.uuid,
                                                     instance.preserved_ports())
        self.rt.release(ctx, instance.uuid)
        placement_client.free_allocations(ctx, instance.uuid)
        with contextlib.suppress(exception.InstanceNotFound):
            instance_action.record(self.conductor.instance_destroy(ctx, instance.uuid))
        LOG.info("Deleted instance %s on %s", instance.uuid, self.host)
        if CONF.filter_scheduler.track_instance_changes:
            try:
                self.scheduler.delete_instance_info(ctx, self.host, instance.uuid)
            except Exception:  # the delete is done; the periodic instance sync catches up
                LOG.exception("Could not tell the schedulers %s is gone", instance.uuid)

    @tracked(SOFT_DELETE_EVENT, notify="soft_delete")
    def soft_delete_instance(self, ctx: RequestContext, instance: Instance) -> None:
        """The guest powered off, everything else kept (its host, its allocation, its
        ports) for a restore, until the reclaim."""
        self.driver.power_off(instance)
        self._update(ctx, instance, [states.SOFT_DELETING], vm_state=states.SOFT_DELETED,
                     task_state=None, power_state=self._power_state(instance))

    @tracked(RESTORE_EVENT, notify="restore")
    def restore_instance(self, ctx: RequestContext, instance: Instance) -> None:
        self.driver.power_on(ctx, instance)
        self._update(ctx, instance, [states.RESTORING], vm_state=states.ACTIVE,
                     task_state=None, power_state=self._power_state(instance))

    @periodic_task(spacing=lambda: CONF.reclaim_instance_interval)
    def _reclaim_queued_deletes(self, ctx: RequestContext) -> None:
        """Delete for good this host's servers soft-deleted longer than
        reclaim_instance_interval ago."""
        if CONF.reclaim_instance_interval <= 0:
            return
        cutoff = utcnow() - datetime.timedelta(seconds=CONF.reclaim_instance_interval)
        for instance in self.conductor.instance_get_all_by_host(ctx, self.host):
            if (instance.vm_state != states.SOFT_DELETED or instance.task_state is not None
                    or (instance.deleted_at is not None and instance.deleted_at > cutoff)):
                continue
            try:
                instance = self._update(ctx, instance, [None], task_state=states.DELETING)
            except (*_GONE, exception.UnexpectedTaskStateError):
                continue  # restored or deleted meanwhile
            LOG.info("Reclaiming soft-deleted instance %s", instance.uuid)
            self.conductor.action_start(ctx, instance.uuid, "delete")
            self.terminate_instance(ctx, instance)

    # --- power -----------------------------------------------------------------------

    @tracked(STOP_EVENT, notify="power_off")
    def stop_instance(self, ctx: RequestContext, instance: Instance,
                      clean_shutdown: bool = True) -> None:
        expected: list[str | None] = [states.POWERING_OFF]
        if self._power_state(instance) in states.POWERED_OFF:
            expected.append(None)  # already off: a racing sync may have settled it
        timeout, retry = ((CONF.shutdown_timeout, CONF.compute.shutdown_retry_interval)
                          if clean_shutdown else (0, 0))
        self.driver.power_off(instance, timeout, retry)
        self._update(ctx, instance, expected, vm_state=states.STOPPED, task_state=None,
                     power_state=self._power_state(instance))

    @tracked(START_EVENT, notify="power_on")
    def start_instance(self, ctx: RequestContext, instance: Instance) -> None:
        self.driver.power_on(ctx, instance)
        self._update(ctx, instance, [states.POWERING_ON], vm_state=states.ACTIVE,
                     task_state=None, power_state=self._power_state(instance))

    @tracked(REBOOT_EVENT, notify="reboot", announce=lambda instance, args: _reboot_pending(
        instance, args["reboot_type"]))
    def reboot_instance(self, ctx: RequestContext, instance: Instance,
                        reboot_type: str) -> None:
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
            self.conductor.instance_fault_create(ctx, instance.uuid, 500, fault_message(exc),
                                                 format_tb(exc), self.host)
        vm_state = states.RESCUED if instance.vm_state == states.RESCUED else states.ACTIVE
        self._update(ctx, instance, None, vm_state=vm_state, task_state=None,
                     power_state=self._power_state(instance))

    @tracked(PAUSE_EVENT, notify="pause")
    def pause_instance(self, ctx: RequestContext, instance: Instance) -> None:
        self.driver.pause(instance)
        self._power_settled(ctx, instance, states.PAUSING, states.PAUSED)

    @tracked(UNPAUSE_EVENT, notify="unpause")
    def unpause_instance(self, ctx: RequestContext, instance: Instance) -> None:
        self.driver.unpause(instance)
        self._power_settled(ctx, instance, states.UNPAUSING, states.ACTIVE)

    @tracked(SUSPEND_EVENT, notify="suspend")
    def suspend_instance(self, ctx: RequestContext, instance: Instance) -> None:
        self.driver.suspend(ctx, instance)
        self._power_settled(ctx, instance, states.SUSPENDING, states.SUSPENDED)

    @tracked(RESUME_EVENT, notify="resume")
    def resume_instance(self, ctx: RequestContext, instance: Instance) -> None:
        self.driver.resume(ctx, instance)
        self._power_settled(ctx, instance, states.RESUMING, states.ACTIVE)

    @tracked(CRASH_DUMP_EVENT, notify="trigger_crash_dump")
    def trigger_crash_dump(self, ctx: RequestContext, instance: Instance) -> None:
        """Neither task nor power state changes: what the guest does with the NMI (panic
        and dump, reboot, or carry on) is its own configuration's choice."""
        self.driver.trigger_crash_dump(instance)

    @tracked(SET_PASSWORD_EVENT, reraise=True)
    def set_admin_password(self, ctx: RequestContext, instance: Instance, new_pass: str
                           ) -> None:
        """RPC call (1.30). A failure the driver does not name becomes Nova's vague one,
        so that no text that might hold the password reaches the caller or the fault."""
        if self._power_state(instance) != states.RUNNING:
            raise exception.InstancePasswordSetFailed(
                instance=instance.uuid, reason=f"instance {instance.uuid} is not running")
        try:
            self.driver.set_admin_password(instance, image_meta(instance), new_pass)
        except (exception.InstanceAgentNotEnabled, exception.SetAdminPasswdNotSupported,
                exception.AdminPasswordNotImplemented):
            raise
        except Exception:
            LOG.exception("set_admin_password failed for instance %s", instance.uuid)
            raise exception.InstancePasswordSetFailed(
                instance=instance.uuid, reason="error setting admin password") from None
        LOG.info("Admin password set for instance %s", instance.uuid)
        self._update(ctx, instance, [states.UPDATING_PASSWORD], task_state=None)

    @tracked(REBUILD_EVENT, error_vm_state=states.ERROR, notify="rebuild")
    def rebuild_instance(self, ctx: RequestContext, instance: Instance, image: ImageMeta,
                         preserve_ephemeral: bool = False) -> None:
        """Nova's rebuild on the same host: the guest and its disks are made again from
        `image` (the API set REBUILDING and the new image_ref), with the volumes it had;
        a stopped server is rebuilt stopped. The ports and the allocation stay as they
        are. A failure leaves the instance in ERROR, as Nova's does."""
        instance = self._update(ctx, instance, [states.REBUILDING],
                                task_state=states.REBUILD_BLOCK_DEVICE_MAPPING)
        self.driver.destroy(ctx, instance, destroy_disks=not preserve_ephemeral)
        instance = self._update(ctx, instance, [states.REBUILD_BLOCK_DEVICE_MAPPING],
                                task_state=states.REBUILD_SPAWNING)
        stopped = instance.vm_state == states.STOPPED
        attached = self.conductor.block_device_mapping_get_all_by_instance(ctx,
                                                                           instance.uuid)
        if instance.is_volume_backed:  # made again on its boot volume, with the others
            self.driver.spawn(ctx, instance, image, power_on=not stopped,
                              block_device_info=self._connected_devices(attached))
        else:  # a guest made again with volumes has them from its first boot on
            self.driver.spawn(ctx, instance, image, power_on=not (stopped or attached))
        if attached and not instance.is_volume_backed:
            self._reattach_volumes(ctx, instance, attached)
            if not stopped:
                self.driver.power_on(ctx, instance)
        self._update(ctx, instance, [states.REBUILD_SPAWNING],
                     vm_state=states.STOPPED if stopped else states.ACTIVE, task_state=None,
                     power_state=self._power_state(instance), launched_at=utcnow())

    @tracked(SNAPSHOT_EVENT, notify="snapshot")
    def snapshot_instance(self, ctx: RequestContext, instance: Instance,
                          image_id: str) -> None:
        """createImage: the guest's disk into the queued image the API made."""
        instance = self._update(ctx, instance, [states.IMAGE_SNAPSHOT_PENDING],
                                task_state=states.IMAGE_SNAPSHOT)
        self._snapshot(ctx, instance, image_id)
        self._update(ctx, instance, [states.IMAGE_UPLOADING], task_state=None)

    @tracked(BACKUP_EVENT, notify="snapshot")
    def backup_instance(self, ctx: RequestContext, instance: Instance, image_id: str,
                        backup_type: str, rotation: int) -> None:
        """A snapshot, then the rotation: the backups of this type of this server beyond
        the newest `rotation` are deleted (a rotation of 0 keeps none, this one
        included, as Nova's does). A backup that cannot be deleted is left, logged."""
        self._snapshot(ctx, instance, image_id, {states.IMAGE_SNAPSHOT: states.IMAGE_BACKUP})
        self._update(ctx, instance, [states.IMAGE_UPLOADING], task_state=None)
        backups = glance.images_with(ctx, {"image_type": "backup", "backup_type": backup_type,
                                           "instance_uuid": instance.uuid})
        for excess in backups[rotation:]:
            try:
                glance.delete(ctx, excess["id"])
            except Exception:
                LOG.exception("Could not delete backup %s of %s beyond rotation %d",
                              excess["id"], instance.uuid, rotation)

    def _snapshot(self, ctx: RequestContext, instance: Instance, image_id: str,
                  renamed: dict[str, str] | None = None) -> None:
        """Through the driver, whose steps' task states a shelve `renames` to its own; a
        failed snapshot's image is deleted, as Nova deletes it."""
        names = renamed or {}

        def update_task_state(task_state: str, expected: str) -> None:
            self._update(ctx, instance, [names.get(expected, expected)],
                         task_state=names.get(task_state, task_state))

        try:
            self.driver.snapshot(ctx, instance, image_id, update_task_state)
        except Exception:
            with contextlib.suppress(Exception):
                glance.delete(ctx, image_id)
            raise

    # --- shelve ------------------------------------------------------------------------

    @tracked(SHELVE_EVENT, notify="shelve")
    def shelve_instance(self, ctx: RequestContext, instance: Instance, image_id: str,
                        clean_shutdown: bool = True) -> None:
        """Power off, write the disk into the shelve image, rest SHELVED on this host;
        offloaded at once when shelved_offload_time is 0, as in Nova."""
        timeout, retry = ((CONF.shutdown_timeout, CONF.compute.shutdown_retry_interval)
                          if clean_shutdown else (0, 0))
        self.driver.power_off(instance, timeout, retry)
        self._snapshot(ctx, instance, image_id, _SHELVE_STEPS)
        shelved = {**instance.system_metadata, "shelved_at": utcnow().isoformat(),
                   "shelved_image_id": image_id, "shelved_host": self.host}
        instance = self._update(ctx, instance, [states.SHELVING_IMAGE_UPLOADING],
                                vm_state=states.SHELVED, task_state=None,
                                power_state=self._power_state(instance),
                                system_metadata=shelved)
        if CONF.shelved_offload_time == 0:
            instance = self._update(ctx, instance, [None],
                                    task_state=states.SHELVING_OFFLOADING)
            self._offload(ctx, instance)

    @tracked(SHELVE_OFFLOAD_EVENT, notify="shelve_offload")
    def shelve_offload_instance(self, ctx: RequestContext, instance: Instance) -> None:
        self._offload(ctx, instance)

    def _offload(self, ctx: RequestContext, instance: Instance) -> None:
        """The guest destroyed, its volumes handed over (reserved for the server, on no
        host), its ports unbound, its resources given back: the server holds no host
        until it is unshelved. A volume-backed server comes here straight from the
        shelve (SHELVING), its guest still running: it is shut down cleanly first."""
        self.driver.power_off(instance, CONF.shutdown_timeout,
                              CONF.compute.shutdown_retry_interval)
        self.driver.destroy(ctx, instance)
        self._terminate_volume_connections(ctx, instance)
        if instance.network_info:
            self.network_api.unbind(ctx, instance.uuid)
        self.rt.release(ctx, instance.uuid)
        placement_client.free_allocations(ctx, instance.uuid)
        self._update(ctx, instance, [states.SHELVING, states.SHELVING_OFFLOADING],
                     vm_state=states.SHELVED_OFFLOADED, task_state=None,
                     power_state=states.SHUTDOWN, host=None, node=None)

    @tracked(UNSHELVE_EVENT, notify="unshelve")
    def unshelve_instance(self, ctx: RequestContext, instance: Instance, image: ImageMeta,
                          node: str) -> None:
        """Spawn an offloaded server here from its shelve image (the scheduler chose this
        host and claimed for it), with its volumes connected here (a volume-backed one
        boots from its root volume: there is no shelve image); a failure gives the host
        back: the server is SHELVED_OFFLOADED again, its volumes reserved, with a
        fault."""
        spawned = False
        try:
            instance = self._update(ctx, instance, [states.UNSHELVING],
                                    task_state=states.SPAWNING, host=self.host, node=node)
            self.rt.instance_claim(ctx, instance, node)
            self._bind_ports(ctx, instance)
            self.driver.spawn(ctx, instance, image,
                              block_device_info=self._connect_volumes(ctx, instance))
            spawned = True
        except Exception:
            self._undo(ctx, instance, spawned)
            placement_client.free_allocations(ctx, instance.uuid)
            self._update(ctx, instance, None, host=None, node=None)
            raise
        remembered = {k: v for k, v in instance.system_metadata.items()
                      if k not in SHELVED_KEYS}
        self._update(ctx, instance, [states.SPAWNING], vm_state=states.ACTIVE,
                     task_state=None, power_state=self._power_state(instance),
                     launched_at=utcnow(), system_metadata=remembered)
        if not instance.is_volume_backed:  # the image it was made from: not ours
            with contextlib.suppress(Exception):  # a leftover image harms no one
                glance.delete(ctx, image.id)

    @periodic_task(spacing=lambda: CONF.shelved_poll_interval)
    def _poll_shelved_instances(self, ctx: RequestContext) -> None:
        """Offload this host's servers shelved longer than shelved_offload_time."""
        if CONF.shelved_offload_time <= 0:
            return
        cutoff = utcnow() - datetime.timedelta(seconds=CONF.shelved_offload_time)
        for instance in self.conductor.instance_get_all_by_host(ctx, self.host):
            shelved_at = instance.system_metadata.get("shelved_at")
            if (instance.vm_state != states.SHELVED or instance.task_state is not None
                    or not shelved_at
                    or datetime.datetime.fromisoformat(shelved_at) > cutoff):
                continue
            try:
                instance = self._update(ctx, instance, [None],
                                        task_state=states.SHELVING_OFFLOADING)
            except _GONE:
                continue
            self.conductor.action_start(ctx, instance.uuid, "shelveOffload")
            self.shelve_offload_instance(ctx, instance)

    @tracked(RESCUE_EVENT, notify="rescue")
    def rescue_instance(self, ctx: RequestContext, instance: Instance, image: ImageMeta,
                        rescue_password: str | None) -> None:
        """A driver that cannot rescue leaves the guest as it was, with a fault."""
        try:
            self.driver.rescue(ctx, instance, image, rescue_password)
        except NotImplementedError:
            raise exception.InstanceNotRescuable(
                instance_id=instance.uuid,
                reason=f"the {CONF.compute_driver} driver cannot rescue") from None
        self._update(ctx, instance, [states.RESCUING], vm_state=states.RESCUED,
                     task_state=None, power_state=self._power_state(instance))

    @tracked(UNRESCUE_EVENT, notify="unrescue")
    def unrescue_instance(self, ctx: RequestContext, instance: Instance) -> None:
        self.driver.unrescue(ctx, instance)
        self._power_settled(ctx, instance, states.UNRESCUING, states.ACTIVE)

    @tracked(POWER_UPDATE_EVENT)
    def power_update(self, ctx: RequestContext, instance: Instance, target: str) -> None:
        """The 2.76 power-update event: the hypervisor's owner powered the guest on or off
        (as Ironic's nodes are) and the driver is to make the record match. Only a server
        at rest in the opposite state is changed, as in Nova; a driver that cannot take
        it (NotImplementedError) leaves a fault and the event failed."""
        on = target == states.POWER_ON_TAG
        at_rest = (states.STOPPED, states.SHUTDOWN) if on else (states.ACTIVE,
                                                                  states.RUNNING)
        if (instance.task_state, instance.vm_state, instance.power_state) != (None, *at_rest):
            LOG.info("The power-update %s event for instance %s is a no-op in vm_state %s, "
                     "task_state %s", target, instance.uuid, instance.vm_state,
                     instance.task_state)
            return
        task_state = states.POWERING_ON if on else states.POWERING_OFF
        instance = self._update(ctx, instance, [None], task_state=task_state)
        self.driver.power_update_event(instance, target)
        self._power_settled(ctx, instance, task_state,
                            states.ACTIVE if on else states.STOPPED)

    def _power_settled(self, ctx: RequestContext, instance: Instance, task_state: str,
                       vm_state: str) -> None:
        """A driver action the API claimed with `task_state` is done: the instance rests
        in `vm_state` with the power state the hypervisor now reports. (A failure, see
        tracked, leaves the vm_state as it was, with a fault.)"""
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

    def get_instance_diagnostics(self, ctx: RequestContext, instance: Instance
                                 ) -> Diagnostics:
        """Only of a running guest, as Nova: anything else is its 409."""
        power_state = self._power_state(instance)
        if power_state != states.RUNNING:
            raise exception.InstanceInvalidState(
                action="get_diagnostics", instance_uuid=instance.uuid, attr="power state",
                state=states.POWER_STATE_NAMES.get(power_state, "pending"))
        try:
            return self.driver.get_instance_diagnostics(instance)
        except NotImplementedError:
            raise exception.FeatureNotSupported() from None

    def _power_state(self, instance: Instance) -> int:
        try:
            return self.driver.get_info(instance).state
        except exception.InstanceNotFound:
            return states.NOSTATE

    # --- power state sync ------------------------------------------------------------

    @periodic_task(spacing=_sync_power_interval, run_immediately=True,
                   prefetch=_placed_on_hosts)
    def _sync_power_states(self, ctx: RequestContext,
                           placed: list[Instance] | None = None) -> None:
        """Align the recorded power states of this host's instances with the hypervisor.
        Its first run, right after a start that found no instance here, has none to look
        at (a build since sets its own): a start of 10,000 such hosts skips 10,000 reads.
        `placed`: the instances here, read for many hosts at once; each is read again
        before its power state is written, and one placed since is seen next time."""
        if self._idle_at_start:
            self._idle_at_start = False
            return
        db_instances = placed if placed is not None else \
            self.conductor.instance_get_all_by_host(ctx, self.host)
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
        if plan.step in _RERUN_ACTIONS:  # the API's action is another request's: ours
            self.conductor.action_start(ctx, instance.uuid, _RERUN_ACTIONS[plan.step])
        self._init_steps[plan.step](ctx, instance, plan, power)

    def _init_interrupted_build(self, ctx: RequestContext, instance: Instance,
                                plan: host_boot.Plan, power: int) -> None:
        exc = exception.BuildAbortException(
            instance_uuid=instance.uuid,
            reason=f"the build was interrupted by a restart of compute {self.host}")
        self.conductor.instance_fault_create(ctx, instance.uuid, 500, fault_message(exc),
                                             None, self.host)
        self.driver.destroy(ctx, instance)  # whatever the interrupted spawn left
        self._terminate_volume_connections(ctx, instance, lenient=True)
        self.rt.release(ctx, instance.uuid)
        placement_client.free_allocations(ctx, instance.uuid)
        # on no host, as a build the watchdog ends: none holds a share of this one
        self._update(ctx, instance, None, vm_state=states.ERROR, task_state=None,
                     power_state=power, host=None, node=None)

    def _init_clear_task(self, ctx: RequestContext, instance: Instance,
                         plan: host_boot.Plan, power: int) -> None:
        self._update(ctx, instance, None, task_state=None, power_state=power)

    def _init_failed_in_place(self, ctx: RequestContext, instance: Instance,
                              plan: host_boot.Plan, power: int) -> None:
        """A rebuild or rescue cut off mid-way: ERROR with a fault, on this host with its
        allocation, so a rebuild or a delete can follow."""
        self.conductor.instance_fault_create(
            ctx, instance.uuid, 500,
            f"Task {instance.task_state} was interrupted by a restart of compute "
            f"{self.host}", None, self.host)
        self._update(ctx, instance, None, vm_state=states.ERROR, task_state=None,
                     power_state=power)

    def _init_delete(self, ctx: RequestContext, instance: Instance, plan: host_boot.Plan,
                     power: int) -> None:
        self.terminate_instance(ctx, instance)

    def _init_stop(self, ctx: RequestContext, instance: Instance, plan: host_boot.Plan,
                   power: int) -> None:
        self.stop_instance(ctx, instance)

    def _init_start(self, ctx: RequestContext, instance: Instance, plan: host_boot.Plan,
                    power: int) -> None:
        self.start_instance(ctx, instance)

    def _init_reboot(self, ctx: RequestContext, instance: Instance, plan: host_boot.Plan,
                     power: int) -> None:
        soft = plan.reboot_type == "SOFT"
        instance = self._update(ctx, instance, [instance.task_state], task_state=(
            states.REBOOT_PENDING if soft else states.REBOOT_PENDING_HARD))
        self.reboot_instance(ctx, instance, plan.reboot_type or "HARD")

    def _init_settle(self, ctx: RequestContext, instance: Instance, plan: host_boot.Plan,
                     power: int) -> None:
        self._update(ctx, instance, [instance.task_state], task_state=None, power_state=power,
                     vm_state=host_boot.VM_STATE_OF_POWER.get(power, instance.vm_state))

    def _init_resume_guest(self, ctx: RequestContext, instance: Instance,
                           plan: host_boot.Plan, power: int) -> None:
        """Bring back a guest the host lost (it was running); as Nova, an instance whose
        guest cannot be brought back is in ERROR."""
        try:
            self.driver.resume_state_on_host_boot(ctx, instance)
        except NotImplementedError:
            LOG.warning("The %s driver cannot resume guests on host boot",
                        type(self.driver).__name__)
            return
        except Exception as exc:
            LOG.exception("Resuming the guest of instance %s failed", instance.uuid)
            self._record_failure(ctx, instance, exc, states.ERROR)
            return
        self._update(ctx, instance, [None], power_state=self._power_state(instance))
