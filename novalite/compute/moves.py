"""The compute side of a resize or cold migration (Nova's prep_resize → resize_instance →
finish_resize, then confirm_resize or revert_resize → finish_revert_resize), each step on
the host it belongs to, under the per-instance lock, recorded as an action event.

Placement during a move (set up by the conductor, novalite.conductor.tasks.migrate): the
migration's uuid holds the source allocation and the instance holds the destination's.
Confirm drops the migration's; revert gives it back to the instance, replacing the
destination's. Every failure leaves exactly one allocation: before the guest moved, the
instance goes back to its source (its state again for a refusal such as a disk that
would shrink, ERROR otherwise); after, it stays where its guest is, in ERROR.

Volumes go with the guest as Nova's do on Cinder's attachments API: the host the guest
leaves, once the guest is off, hands each over (Nova's _terminate_volume_connections: a
fresh reservation for the server, then the attachment there deleted, so the volume is
never free in between); the host it lands on connects them and makes the guest with
them. A revert hands them back the same way; a guest put back on its source after a
failure gets its volumes connected there again.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterator
from typing import Any

from novalite import exception
from novalite.clients import placement as placement_client
from novalite.compute import host_boot
from novalite.compute.resource_tracker import ResourceTracker
from novalite.compute.rpcapi import ComputeAPI
from novalite.conductor.rpcapi import ComputeTaskAPI, ConductorAPI
from novalite.conf import CONF
from novalite.context import RequestContext
from novalite.exception import fault_message, format_tb
from novalite.locks import KeyedLocks
from novalite.notifications import events
from novalite.notifications.instance_action import COMPUTE, InstanceAction
from novalite.objects import migration as mig
from novalite.objects import states
from novalite.objects.flavor import Flavor
from novalite.objects.instance import Instance
from novalite.objects.migration import Migration
from novalite.objects.request_spec import RequestSpec, Selection
from novalite.periodic import periodic_task
from novalite.virt import driver as virt_driver

LOG = logging.getLogger(__name__)

PREP_EVENT = "compute_prep_resize"
RESIZE_EVENT = "compute_resize_instance"
FINISH_EVENT = "compute_finish_resize"
CONFIRM_EVENT = "compute_confirm_resize"
REVERT_EVENT = "compute_revert_resize"
FINISH_REVERT_EVENT = "compute_finish_revert_resize"
_GONE = (exception.InstanceNotFound, exception.UnexpectedTaskStateError)
# Nova's instance.<action>.* of each step (a revert's .start and .end both come from
# finish_revert_resize here, the step that ends it).
_NOTIFIED = {PREP_EVENT: "resize_prep", RESIZE_EVENT: "resize", FINISH_EVENT: "resize_finish",
             CONFIRM_EVENT: "resize_confirm", FINISH_REVERT_EVENT: "resize_revert"}


def _confirm_spacing() -> float:
    """As often as the window is long (at most every minute); 0 switches it off."""
    window = CONF.resize_confirm_window
    return min(window, 60) if window > 0 else 0


class MoveSteps:
    """Mixed into the ComputeManager, whose services these are."""

    host: str
    driver: virt_driver.ComputeDriver
    conductor: ConductorAPI
    compute_task: ComputeTaskAPI
    compute_rpc: ComputeAPI
    rt: ResourceTracker
    _locks: KeyedLocks
    _bind_ports: Callable[[RequestContext, Instance], None]
    # novalite.compute.volume_steps
    _connect_volumes: Callable[..., list[virt_driver.VolumeDevice]]
    _terminate_volume_connections: Callable[..., None]

    @contextlib.contextmanager
    def _move_step(self, ctx: RequestContext, instance: Instance, event: str,
                   failed: Callable[[Exception], None], **args: Any) -> Iterator[None]:
        """Lock, event start and finish, Nova's instance.<step>.start/.end/.error (`args`:
        what the payload adds, the new flavor of a resize_prep); a failure is handed to
        `failed` (which leaves the move in a final state), never raised to the caster."""
        with self._locks(instance.uuid):
            self.conductor.action_event_start(ctx, instance.uuid, event, self.host)
            note = InstanceAction(ctx, instance, self.host, _NOTIFIED[event], args
                                  ) if event in _NOTIFIED else None
            try:
                if note:
                    note.start()
                yield
            except Exception as exc:
                LOG.exception("%s failed for instance %s", event, instance.uuid)
                if note:
                    note.error(exc)
                events.exception(exc, COMPUTE, ctx, self.host)
                try:
                    failed(exc)
                except Exception:
                    LOG.exception("Ending the failed move of %s failed", instance.uuid)
                with contextlib.suppress(exception.InstanceNotFound):
                    self.conductor.action_event_finish(ctx, instance.uuid, event, "Error",
                                                       format_tb(exc))
            else:
                if note:
                    note.end()
                self.conductor.action_event_finish(ctx, instance.uuid, event, "Success")

    def _guest_power(self, instance: Instance) -> int:
        try:
            return self.driver.get_info(instance).state
        except exception.InstanceNotFound:
            return states.NOSTATE

    def _status(self, ctx: RequestContext, migration: Migration, status: str) -> Migration:
        return self.conductor.migration_update(ctx, migration.uuid, {"status": status})

    # --- destination: take the move ---------------------------------------------------

    def prep_resize(self, ctx: RequestContext, instance: Instance, flavor: Flavor,
                    migration: Migration, request_spec: RequestSpec,
                    host_list: list[Selection], node: str) -> None:
        def failed(exc: Exception) -> None:
            self._prep_failed(ctx, instance, migration, request_spec, host_list, exc)

        with self._move_step(ctx, instance, PREP_EVENT, failed, flavor=flavor):
            instance = self.conductor.instance_get(ctx, instance.uuid)
            if instance.task_state != states.RESIZE_PREP:
                raise exception.UnexpectedTaskStateError(
                    instance_uuid=instance.uuid, expected=[states.RESIZE_PREP],
                    actual=instance.task_state)
            self.rt.move_claim(ctx, instance, migration.uuid, flavor, node)
            migration = self.conductor.migration_update(
                ctx, migration.uuid, {"dest_compute": self.host, "dest_node": node,
                                      "dest_host": CONF.my_ip})
            self.compute_rpc.resize_instance(ctx, migration.source_compute or "", instance,
                                             flavor, migration)

    def _prep_failed(self, ctx: RequestContext, instance: Instance, migration: Migration,
                     spec: RequestSpec, host_list: list[Selection], exc: Exception) -> None:
        """Drop this host's claim (the instance holds only the destination's: the source
        is the migration's) and let the conductor try the next alternate; a move whose
        instance went meanwhile just ends."""
        self.rt.release(ctx, migration.uuid)
        placement_client.free_allocations(ctx, instance.uuid)
        if isinstance(exc, _GONE):
            self._status(ctx, migration, mig.ERROR)
            placement_client.free_allocations(ctx, migration.uuid)
            return
        self.compute_task.reschedule_move(ctx, instance.uuid, migration, spec, host_list,
                                          fault_message(exc))

    # --- source: power off and hand over ----------------------------------------------

    def resize_instance(self, ctx: RequestContext, instance: Instance, flavor: Flavor,
                        migration: Migration) -> None:
        def failed(exc: Exception) -> None:
            self._back_to_source(ctx, instance, migration, exc)

        with self._move_step(ctx, instance, RESIZE_EVENT, failed):
            instance = self.conductor.instance_get(ctx, instance.uuid)
            power_on = instance.vm_state != states.STOPPED
            migration = self._status(ctx, migration, mig.MIGRATING)
            instance = self.conductor.instance_update(
                ctx, instance.uuid, {"task_state": states.RESIZE_MIGRATING},
                expected_task_state=[states.RESIZE_PREP])
            disk_info = self.driver.migrate_disk_and_power_off(
                ctx, instance, migration.dest_compute or "", flavor, CONF.shutdown_timeout,
                CONF.compute.shutdown_retry_interval)
            self._terminate_volume_connections(ctx, instance)  # for the destination
            migration = self._status(ctx, migration, mig.POST_MIGRATING)
            instance = self.conductor.instance_update(
                ctx, instance.uuid, {"task_state": states.RESIZE_MIGRATED,
                                     "host": migration.dest_compute,
                                     "node": migration.dest_node,
                                     "power_state": states.SHUTDOWN},
                expected_task_state=[states.RESIZE_MIGRATING])
            if instance.flavor is not None:  # the old guest's share stays until confirm
                self.rt.hold(ctx, migration.uuid, instance.flavor, migration.source_node,
                             instance.uuid)
            self.rt.release(ctx, instance.uuid)
            self.compute_rpc.finish_resize(ctx, migration.dest_compute or "", instance,
                                           migration, disk_info, power_on)

    def _back_to_source(self, ctx: RequestContext, instance: Instance, migration: Migration,
                        exc: Exception) -> None:
        """The guest never left: give the source allocation back to the instance (its
        destination claim goes in the same write), put back a guest the driver had
        taken (or start one it had only stopped, when a restart cut the move short),
        with its volumes connected here again if they were handed over, and
        leave the instance on the source, idle: in its state after a refusal
        (ResizeError, or a driver without moves), in ERROR otherwise."""
        self._status(ctx, migration, mig.ERROR)
        placement_client.report_client().move_allocations(
            ctx, migration.uuid, instance.uuid, source_type="MIGRATION",
            target_type="INSTANCE")
        self.rt.release(ctx, migration.uuid)
        # the driver refused (or cannot move at all) before touching the guest
        refused = isinstance(exc, exception.ResizeError | NotImplementedError)
        power_on = instance.vm_state != states.STOPPED
        if instance.uuid not in self.driver.list_instances():
            with contextlib.suppress(exception.InstanceNotFound):
                self.driver.finish_revert_migration(
                    ctx, instance, self._connect_volumes(ctx, instance, lenient=True),
                    power_on=power_on)
        elif power_on and self._guest_power(instance) != states.RUNNING:
            self.driver.power_on(ctx, instance)  # stopped by a move a restart cut short
        self.conductor.instance_fault_create(ctx, instance.uuid, 400 if refused else 500,
                                             fault_message(exc), format_tb(exc), self.host)
        values = {"task_state": None, "host": self.host, "node": migration.source_node,
                  "power_state": self._guest_power(instance)}
        if not refused:
            values["vm_state"] = states.ERROR
        current = self.conductor.instance_get(ctx, instance.uuid)
        if current.flavor is not None:
            self.conductor.instance_update_flavor(ctx, instance.uuid, values,
                                                  [current.task_state], current.flavor,
                                                  None, None)

    def _init_interrupted_move(self, ctx: RequestContext, instance: Instance,
                               plan: host_boot.Plan, power: int) -> None:
        """On start, an instance whose move died on this source while its disks were
        being handed over (RESIZE_MIGRATING) goes back to this host, as Nova rolls it
        back: its allocation returned, its guest put back, a fault saying why."""
        moving = [m for m in self.conductor.migration_get_in_progress_by_host(ctx, self.host)
                  if m.instance_uuid == instance.uuid and m.source_compute == self.host]
        if not moving:
            LOG.warning("Instance %s was moving but has no migration in progress",
                        instance.uuid)
            return
        self._back_to_source(ctx, instance, moving[-1], exception.ResizeError(
            reason=f"the move was interrupted by a restart of compute {self.host}"))

    def _init_interrupted_landing(self, ctx: RequestContext, instance: Instance,
                                  plan: host_boot.Plan, power: int) -> None:
        """On start, an instance whose move died landing on this destination (its finish
        cut short, or its message gone with the service) goes back to its source, which
        keeps the guest's disk until a confirm: reverted as a user's revert is, with a
        fault saying why. Nova leaves such a server in its task state for ever."""
        landing = [m for m in self.conductor.migration_get_in_progress_by_host(ctx, self.host)
                   if m.instance_uuid == instance.uuid and m.dest_compute == self.host
                   and m.status == mig.POST_MIGRATING]
        if not landing:
            LOG.warning("Instance %s was landing here but has no migration in progress",
                        instance.uuid)
            return
        migration = self._status(ctx, landing[-1], mig.REVERTING)
        self.conductor.instance_fault_create(
            ctx, instance.uuid, 500,
            f"The move to {self.host} was interrupted by a restart of compute {self.host}; "
            f"the server went back to {migration.source_compute}", None, self.host)
        instance = self.conductor.instance_update(
            ctx, instance.uuid, {"task_state": states.RESIZE_REVERTING,
                                 "power_state": states.RUNNING
                                 if instance.vm_state == states.ACTIVE else states.SHUTDOWN},
            expected_task_state=[instance.task_state])
        self.revert_resize(ctx, instance, migration)

    # --- destination: land -------------------------------------------------------------

    def finish_resize(self, ctx: RequestContext, instance: Instance, migration: Migration,
                      disk_info: str, power_on: bool) -> None:
        def failed(exc: Exception) -> None:
            self._error_where_it_is(ctx, instance, migration, exc)

        status = self.conductor.migration_get(ctx, migration.uuid).status
        if status != mig.POST_MIGRATING:  # queued before this service's restart undid it
            LOG.info("Not finishing migration %s of instance %s: it is %s", migration.uuid,
                     instance.uuid, status)
            return
        with self._move_step(ctx, instance, FINISH_EVENT, failed):
            old, new = migration.old_flavor, migration.new_flavor
            if old is None or new is None:
                raise exception.ResizeError(reason="the migration has no flavors")
            instance = self.conductor.instance_update_flavor(
                ctx, instance.uuid, {"task_state": states.RESIZE_FINISH},
                [states.RESIZE_MIGRATED], new, old, new)
            self._bind_ports(ctx, instance)  # here, before the guest sends
            self.driver.finish_migration(ctx, migration, instance, disk_info, None,
                                         old.flavorid != new.flavorid,
                                         self._connect_volumes(ctx, instance), power_on)
            self.rt.release(ctx, migration.uuid)
            self.rt.hold(ctx, instance.uuid, new, migration.dest_node, instance.uuid)
            if migration.source_compute == self.host and old is not None:
                self.rt.hold(ctx, migration.uuid, old, migration.source_node, instance.uuid)
            self._status(ctx, migration, mig.FINISHED)
            self.conductor.instance_update(
                ctx, instance.uuid, {"vm_state": states.RESIZED, "task_state": None,
                                     "power_state": self._guest_power(instance)},
                expected_task_state=[states.RESIZE_FINISH])

    def _error_where_it_is(self, ctx: RequestContext, instance: Instance,
                           migration: Migration, exc: Exception) -> None:
        """The guest may be on either host: the instance stays where the database has
        it, in ERROR with the fault, holding its own allocation; the migration's goes."""
        self._status(ctx, migration, mig.ERROR)
        placement_client.free_allocations(ctx, migration.uuid)
        self.rt.release(ctx, migration.uuid)
        with contextlib.suppress(*_GONE):
            self.conductor.instance_fault_create(ctx, instance.uuid, 500, fault_message(exc),
                                                 format_tb(exc), self.host)
            self.conductor.instance_update(ctx, instance.uuid,
                                           {"vm_state": states.ERROR, "task_state": None},
                                           check_task_state=False)

    # --- confirm (source) -------------------------------------------------------------

    def confirm_resize(self, ctx: RequestContext, instance: Instance,
                       migration: Migration) -> None:
        def failed(exc: Exception) -> None:
            self._error_where_it_is(ctx, instance, migration, exc)

        with self._move_step(ctx, instance, CONFIRM_EVENT, failed):
            self.driver.confirm_migration(ctx, migration, instance)
            self.rt.release(ctx, migration.uuid)
            placement_client.free_allocations(ctx, migration.uuid)
            self._status(ctx, migration, mig.CONFIRMED)
            # a delete confirms first (Nova's _confirm_resize_on_deleting): it owns the
            # instance now, and this confirm is done with the source
            with contextlib.suppress(*_GONE):
                instance = self.conductor.instance_get(ctx, instance.uuid)
                vm_state = (states.STOPPED if instance.power_state in states.POWERED_OFF
                            else states.ACTIVE)
                if instance.flavor is not None:
                    self.conductor.instance_update_flavor(
                        ctx, instance.uuid, {"vm_state": vm_state}, [None],
                        instance.flavor, None, None)

    # --- revert (destination, then source) --------------------------------------------

    def revert_resize(self, ctx: RequestContext, instance: Instance,
                      migration: Migration) -> None:
        def failed(exc: Exception) -> None:
            self._error_where_it_is(ctx, instance, migration, exc)

        with self._move_step(ctx, instance, REVERT_EVENT, failed):
            instance = self.conductor.instance_get(ctx, instance.uuid)
            if instance.task_state != states.RESIZE_REVERTING:
                raise exception.UnexpectedTaskStateError(
                    instance_uuid=instance.uuid, expected=[states.RESIZE_REVERTING],
                    actual=instance.task_state)
            self.driver.destroy(ctx, instance, destroy_disks=True)
            self._terminate_volume_connections(ctx, instance)  # for the source
            self.rt.release(ctx, instance.uuid)
            self.compute_rpc.finish_revert_resize(ctx, migration.source_compute or "",
                                                  instance, migration)

    def finish_revert_resize(self, ctx: RequestContext, instance: Instance,
                             migration: Migration) -> None:
        def failed(exc: Exception) -> None:
            self._error_where_it_is(ctx, instance, migration, exc)

        with self._move_step(ctx, instance, FINISH_REVERT_EVENT, failed):
            instance = self.conductor.instance_get(ctx, instance.uuid)
            old = migration.old_flavor
            if old is None:
                raise exception.ResizeError(reason="the migration has no old flavor")
            power_on = instance.power_state == states.RUNNING
            instance = self.conductor.instance_update_flavor(
                ctx, instance.uuid, {"host": self.host, "node": migration.source_node},
                [states.RESIZE_REVERTING], old, None, None)
            self._bind_ports(ctx, instance)  # back here
            self.driver.finish_revert_migration(ctx, instance,
                                                self._connect_volumes(ctx, instance),
                                                power_on)
            self.rt.release(ctx, migration.uuid)
            self.rt.hold(ctx, instance.uuid, old, migration.source_node, instance.uuid)
            placement_client.report_client().move_allocations(
                ctx, migration.uuid, instance.uuid, source_type="MIGRATION",
                target_type="INSTANCE")
            self._status(ctx, migration, mig.REVERTED)
            self.conductor.instance_update(
                ctx, instance.uuid, {"vm_state": states.ACTIVE if power_on else states.STOPPED,
                                     "task_state": None,
                                     "power_state": self._guest_power(instance)},
                expected_task_state=[states.RESIZE_REVERTING])

    # --- resize_confirm_window --------------------------------------------------------

    @periodic_task(spacing=_confirm_spacing)
    def _poll_unconfirmed_resizes(self, ctx: RequestContext) -> None:
        """Confirm the moves to this host left in VERIFY_RESIZE longer than
        [DEFAULT] resize_confirm_window, through the confirm path (Nova's periodic of
        the same name)."""
        window = CONF.resize_confirm_window
        for migration in self.conductor.migration_get_unconfirmed_by_dest_compute(
                ctx, window, self.host):
            try:
                self._auto_confirm(ctx, migration)
            except Exception:
                LOG.exception("Auto-confirming migration %s failed", migration.uuid)

    def _auto_confirm(self, ctx: RequestContext, migration: Migration) -> None:
        try:
            instance = self.conductor.instance_get(ctx, migration.instance_uuid)
        except exception.InstanceNotFound:
            self._status(ctx, migration, mig.ERROR)
            return
        if instance.vm_state != states.RESIZED or instance.task_state is not None:
            LOG.info("Instance %s in %s/%s: not confirming migration %s yet",
                     instance.uuid, instance.vm_state, instance.task_state, migration.uuid)
            return
        LOG.info("Automatically confirming migration %s of instance %s", migration.uuid,
                 instance.uuid)
        migration = self._status(ctx, migration, mig.CONFIRMING)
        self.conductor.action_start(ctx, instance.uuid, "confirmResize")
        self.compute_rpc.confirm_resize(ctx, migration.source_compute or "", instance,
                                        migration)
