"""The compute side of a live migration (Nova's live_migration on the source, then
post_live_migration_at_destination), each under the per-instance lock, recorded as an
action event, notified as Nova's: live_migration_pre and _post_dest on the destination,
live_migration_post and _rollback on the source, _rollback_dest on the destination.

Placement during the move (set up by novalite.conductor.tasks.live_migrate): the
migration holds the source allocation, the instance the destination's. When the guest
has arrived, the migration's is freed; when the move fails on the source, the source
allocation goes back to the instance (replacing the destination's) and the server stays
where it was, running, with a fault.

Volumes, as Nova's on Cinder's attachments API: the destination attaches each to itself
as well before the guest comes (a second attachment of the server's), the source's
attachments stay the mappings' until the guest runs there, then the mappings take the
destination's and the source's are deleted; a rollback deletes the destination's.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
from collections.abc import Callable
from typing import Any

from novalite import exception
from novalite.clients import placement as placement_client
from novalite.compute.moves import MoveSteps
from novalite.compute.wrapping import tracked
from novalite.context import RequestContext
from novalite.exception import fault_message, format_tb
from novalite.notifications.instance_action import notified
from novalite.objects import migration as mig
from novalite.objects import states
from novalite.objects.image import ImageMeta
from novalite.objects.instance import Instance
from novalite.objects.migration import Migration
from novalite.timeutils import utcnow
from novalite.virt import driver as virt_driver

LOG = logging.getLogger(__name__)

# The key of a live migration's migrate_data under which the destination tells the
# source the attachments it made for the server's volumes.
VOLUMES = "volume_attachments"
LIVE_MIGRATION_EVENT = "compute_live_migration"
EVACUATE_EVENT = "compute_rebuild_instance"
POST_AT_DESTINATION_EVENT = "compute_post_live_migration_at_destination"
FORCE_COMPLETE_EVENT = "compute_live_migration_force_complete"
ABORT_EVENT = "compute_live_migration_abort"


class LiveMoveSteps(MoveSteps):
    """Mixed into the ComputeManager, as MoveSteps is."""

    _record_failure: Callable[..., None]  # what `tracked` needs of its host
    # novalite.compute.volume_steps
    _attach_here_too: Callable[..., dict[str, dict[str, Any]]]
    _take_attachments: Callable[..., None]
    _delete_unmapped_attachments: Callable[..., None]
    _connected_devices: Callable[..., list[virt_driver.VolumeDevice]]

    # --- source -----------------------------------------------------------------------

    def live_migration(self, ctx: RequestContext, instance: Instance,
                       migration: Migration) -> None:
        def failed(exc: Exception) -> None:
            self._live_rollback(ctx, instance, migration, exc)

        with self._move_step(ctx, instance, LIVE_MIGRATION_EVENT, failed):
            try:
                migration = self.conductor.migration_update(
                    ctx, migration.uuid, {"status": mig.RUNNING},
                    expected_status=[mig.PREPARING])
            except exception.UnexpectedMigrationStatus:
                LOG.info("Live migration %s of %s was aborted before it started",
                         migration.uuid, instance.uuid)
                return
            dest = migration.dest_compute or ""
            migrate_data = self.compute_rpc.pre_live_migration(
                ctx, dest, instance, migration,
                self.driver.check_can_live_migrate_source(ctx, instance))
            attached_there = migrate_data.pop(VOLUMES, {})
            try:
                self.driver.live_migration(ctx, instance, dest, migrate_data)
            except exception.LiveMigrationAborted:
                self._live_rollback(ctx, instance, migration, None)
                return
            with notified(ctx, instance, self.host, "live_migration_post"):
                self._take_attachments(ctx, instance, attached_there)
                self.compute_rpc.post_live_migration_at_destination(
                    ctx, migration.dest_compute or "", instance, migration)
                self.rt.release(ctx, instance.uuid)  # the guest is the destination's now
                placement_client.free_allocations(ctx, migration.uuid)

    def _live_rollback(self, ctx: RequestContext, instance: Instance, migration: Migration,
                       exc: Exception | None) -> None:
        """The guest never left: the source allocation back to the instance (replacing
        the destination's claim), the migration in error, the server idle and running
        here, with the reason (Nova's _rollback_live_migration). With no `exc` the move
        was aborted: the migration is cancelled and there is no fault. Whatever the
        destination prepared for the guest goes."""
        with notified(ctx, instance, self.host, "live_migration_rollback"):
            self._status(ctx, migration, mig.ERROR if exc else mig.CANCELLED)
            if migration.dest_compute:
                self._rollback_at_destination(ctx, instance, migration.dest_compute)
            placement_client.report_client().move_allocations(
                ctx, migration.uuid, instance.uuid, source_type="MIGRATION",
                target_type="INSTANCE")
            if exc is not None:
                refused = isinstance(exc, NotImplementedError)
                message = (f"The {type(self.driver).__name__} cannot live-migrate."
                           if refused else fault_message(exc))
                self.conductor.instance_fault_create(ctx, instance.uuid,
                                                     400 if refused else 500, message,
                                                     format_tb(exc), self.host)
            with contextlib.suppress(exception.InstanceNotFound,
                                     exception.UnexpectedTaskStateError):
                self.conductor.instance_update(ctx, instance.uuid, {"task_state": None},
                                               expected_task_state=[states.MIGRATING])

    def _rollback_at_destination(self, ctx: RequestContext, instance: Instance,
                                 dest: str) -> None:
        """A destination that cannot clean up (down, or failing) does not keep the
        server from running on here: what it prepared stays until a next move there
        fails on it and rolls back, or the guest is reaped as a deleted server's."""
        try:
            self.compute_rpc.rollback_live_migration_at_destination(ctx, dest, instance)
        except Exception:
            LOG.warning("Destination %s did not remove what it prepared for instance %s",
                        dest, instance.uuid, exc_info=True)

    @tracked(FORCE_COMPLETE_EVENT, alongside=True, notify="live_migration_force_complete")
    def live_migration_force_complete(self, ctx: RequestContext, instance: Instance,
                                      migration: Migration) -> None:
        """Finish the copy now: the driver pauses the guest so that the rest goes over
        at once (Nova's; it does not wait for the live migration's lock, which the copy
        holds)."""
        self._check_live_status(ctx, migration, (mig.RUNNING,), "force complete")
        self.driver.live_migration_force_complete(instance)

    @tracked(ABORT_EVENT, alongside=True, notify="live_migration_abort")
    def live_migration_abort(self, ctx: RequestContext, instance: Instance,
                             migration: Migration) -> None:
        """A migration the source has not started is cancelled here (its start then
        finds it so and does nothing); a running one is the driver's to stop, and the
        live migration step rolls back when the copy ends."""
        try:
            migration = self.conductor.migration_update(
                ctx, migration.uuid, {"status": mig.CANCELLED},
                expected_status=[mig.PREPARING])
        except exception.UnexpectedMigrationStatus:
            self._check_live_status(ctx, migration, (mig.RUNNING,), "abort live migration")
            self.driver.live_migration_abort(instance)
            return
        self._live_rollback(ctx, instance, migration, None)

    def _check_live_status(self, ctx: RequestContext, migration: Migration,
                           allowed: tuple[str, ...], method: str) -> None:
        current = self.conductor.migration_get(ctx, migration.uuid)
        if current.status not in allowed:
            raise exception.InvalidMigrationState(
                migration_id=current.id, instance_uuid=current.instance_uuid,
                state=current.status, method=method)

    def _init_interrupted_live_migration(self, ctx: RequestContext, instance: Instance,
                                         plan: object, power: int) -> None:
        """On start, a live migration this source was running when it died ends in
        error with the server back here, as Nova's _init_instance ends it."""
        moving = [m for m in self.conductor.migration_get_in_progress_by_host(ctx, self.host)
                  if m.instance_uuid == instance.uuid and m.source_compute == self.host]
        reason = exception.NovaliteException(
            f"The live migration was interrupted by a restart of compute {self.host}")
        if moving:
            self._live_rollback(ctx, instance, moving[0], reason)
            return
        with contextlib.suppress(exception.InstanceNotFound,
                                 exception.UnexpectedTaskStateError):
            self.conductor.instance_update(ctx, instance.uuid, {"task_state": None},
                                           expected_task_state=[states.MIGRATING])

    # --- evacuation --------------------------------------------------------------------

    def evacuate_instance(self, ctx: RequestContext, instance: Instance, image: ImageMeta,
                          migration: Migration, stopped: bool) -> None:
        """Rebuild here a server whose host is down: claimed by the scheduler for this
        host, spawned from its image (a volume-backed one from its root volume) with
        its volumes, in its state again (SHUTOFF if it was, or if 2.95 asked); the
        failed host's resources stay its evacuation's until it comes back
        (_destroy_evacuated_instances). Each volume's attachment to the failed host is
        handed over to a fresh reservation (Nova's rebuild on evacuate: never free in
        between), then connected here."""
        def failed(exc: Exception) -> None:
            self._evacuation_failed(ctx, instance, migration, exc)

        with self._move_step(ctx, instance, EVACUATE_EVENT, failed):
            node = migration.dest_node or self.host
            power_on = not stopped and instance.vm_state != states.STOPPED
            instance = self.conductor.instance_update(
                ctx, instance.uuid, {"host": self.host, "node": node,
                                     "task_state": states.REBUILD_SPAWNING},
                expected_task_state=[states.REBUILDING])
            self.rt.instance_claim(ctx, instance, node)
            self._bind_ports(ctx, instance)
            self._terminate_volume_connections(ctx, instance)  # the failed host's
            self.driver.spawn(ctx, instance, image, power_on=power_on,
                              block_device_info=self._connect_volumes(ctx, instance))
            self.conductor.instance_update(
                ctx, instance.uuid, {"vm_state": states.ACTIVE if power_on
                                     else states.STOPPED, "task_state": None,
                                     "power_state": self._guest_power(instance),
                                     "launched_at": utcnow()},
                expected_task_state=[states.REBUILD_SPAWNING])
            self._status(ctx, migration, mig.DONE_STATUS)

    def _evacuation_failed(self, ctx: RequestContext, instance: Instance,
                           migration: Migration, exc: Exception) -> None:
        """Nothing of the server stays here: its volumes handed over (reserved for it),
        its claim goes back to the evacuation's allocation holder (the instance again,
        on its failed host), ERROR, the reason."""
        with contextlib.suppress(Exception):
            self.driver.destroy(ctx, instance)
        self._terminate_volume_connections(ctx, instance, lenient=True)
        self.rt.release(ctx, instance.uuid)
        self._status(ctx, migration, mig.ERROR)
        placement_client.report_client().move_allocations(
            ctx, migration.uuid, instance.uuid, source_type="MIGRATION",
            target_type="INSTANCE")
        self.conductor.instance_fault_create(ctx, instance.uuid, 500, fault_message(exc),
                                             format_tb(exc), self.host)
        with contextlib.suppress(exception.InstanceNotFound):
            self.conductor.instance_update(
                ctx, instance.uuid, {"task_state": None, "vm_state": states.ERROR,
                                     "host": migration.source_compute,
                                     "node": migration.source_node},
                check_task_state=False)

    def _destroy_evacuated_instances(self, ctx: RequestContext,
                                     moves: list[Migration] | None = None) -> None:
        """On start: the servers evacuated away while this host was down are another
        host's now; their leftover guests here go, and the resources their evacuations
        held here are given back (Nova's _destroy_evacuated_instances). `moves`: this
        host's moves in progress, when already read."""
        if moves is None:
            moves = self.conductor.migration_get_in_progress_by_host(ctx, self.host)
        for migration in moves:
            if (migration.migration_type != mig.EVACUATION
                    or migration.source_compute != self.host):
                continue
            if migration.status != mig.DONE_STATUS:
                continue  # still being rebuilt elsewhere: the next start cleans up
            with contextlib.suppress(exception.InstanceNotFound):
                self.driver.destroy(ctx, Instance(uuid=migration.instance_uuid))
            self.rt.release(ctx, migration.uuid)
            placement_client.free_allocations(ctx, migration.uuid)
            self._status(ctx, migration, mig.COMPLETED)
            LOG.info("Removed instance %s, evacuated to %s, from this host",
                     migration.instance_uuid, migration.dest_compute)

    # --- destination ------------------------------------------------------------------

    def pre_live_migration(self, ctx: RequestContext, instance: Instance,
                           migration: Migration,
                           migrate_data: dict[str, Any] | None = None) -> dict[str, Any]:
        """Ready to receive the guest the source's driver describes in `migrate_data`,
        its volumes attached here too (_attach_here_too): what the source's driver
        needs to send it, and under VOLUMES those attachments, which the source gives
        the mappings once the guest has moved."""
        with notified(ctx, instance, self.host, "live_migration_pre"):
            mappings = self.conductor.block_device_mapping_get_all_by_instance(
                ctx, instance.uuid)
            made = self._attach_here_too(ctx, instance, mappings)
            devices = self._connected_devices([dataclasses.replace(bdm, **made[bdm.uuid])
                                               for bdm in mappings])
            try:
                return {**self.driver.pre_live_migration(ctx, instance, devices,
                                                         migrate_data or {}),
                        VOLUMES: made}
            except Exception:
                self._delete_unmapped_attachments(ctx, instance, mappings)
                raise

    def rollback_live_migration_at_destination(self, ctx: RequestContext,
                                               instance: Instance) -> None:
        """What pre_live_migration prepared goes: the driver's, and the attachments
        made here, which no mapping took."""
        with notified(ctx, instance, self.host, "live_migration_rollback_dest"):
            self.driver.rollback_live_migration_at_destination(ctx, instance)
            self._delete_unmapped_attachments(
                ctx, instance,
                self.conductor.block_device_mapping_get_all_by_instance(ctx,
                                                                        instance.uuid))

    def post_live_migration_at_destination(self, ctx: RequestContext, instance: Instance,
                                           migration: Migration) -> None:
        def failed(exc: Exception) -> None:
            """The guest is here but could not be recorded: ERROR here, with the reason
            (its allocation, the instance's, is already on this host)."""
            self._status(ctx, migration, mig.ERROR)
            self.conductor.instance_fault_create(ctx, instance.uuid, 500,
                                                 fault_message(exc), format_tb(exc),
                                                 self.host)
            with contextlib.suppress(exception.InstanceNotFound):
                self.conductor.instance_update(
                    ctx, instance.uuid, {"task_state": None, "vm_state": states.ERROR,
                                         "host": self.host,
                                         "node": migration.dest_node},
                    check_task_state=False)

        with (self._move_step(ctx, instance, POST_AT_DESTINATION_EVENT, failed),
              notified(ctx, instance, self.host, "live_migration_post_dest")):
            self.driver.post_live_migration_at_destination(
                ctx, instance, self._connected_devices(
                    self.conductor.block_device_mapping_get_all_by_instance(
                        ctx, instance.uuid)))
            instance = self.conductor.instance_update(
                ctx, instance.uuid, {"host": self.host, "node": migration.dest_node,
                                     "task_state": None,
                                     "power_state": self._guest_power(instance)},
                expected_task_state=[states.MIGRATING])
            self.rt.instance_claim(ctx, instance, migration.dest_node or self.host)
            self._bind_ports(ctx, instance)
            self._status(ctx, migration, mig.COMPLETED)
