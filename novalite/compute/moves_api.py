"""The compute API's resize, cold migrate, confirm and revert (Nova's compute.api.API
resize, confirm_resize and revert_resize): state checks and the 400s/409s Nova answers,
the instance claimed for the move, the action recorded, the work cast."""

from __future__ import annotations

from novalite import exception
from novalite.compute import guards, quotas
from novalite.compute import rpcapi as compute_rpcapi
from novalite.conductor import rpcapi as conductor_rpcapi
from novalite.context import RequestContext
from novalite.db.api import actions, compute_nodes, flavors, instances, migrations, services
from novalite.notifications import events, instance_action
from novalite.objects import migration as mig
from novalite.objects import states
from novalite.objects.flavor import Flavor
from novalite.objects.instance import Instance
from novalite.objects.migration import Migration
from novalite.service import liveness


class CannotMigrateToSameHost(exception.Invalid):
    msg_fmt = "Cannot migrate to the host where the server exists."


class HostNotFoundForMove(exception.Invalid):
    """Nova answers 400, not 404, for a migration's unknown host."""

    msg_fmt = "Compute host %(host)s could not be found."


class ComputeServiceInUse(exception.Invalid):
    """Nova answers 400: evacuating from a host whose compute is up would run the
    server twice."""

    msg_fmt = "Compute service of %(host)s is still in use."


class NotResized(exception.Invalid):
    msg_fmt = "Instance has not been resized."


class FlavorNotLocated(exception.Invalid):
    msg_fmt = "Unable to locate requested flavor."


class MovesNotAvailable(exception.Conflict):
    msg_fmt = ("Resize and migration are not available until the compute and conductor "
               "services are upgraded ([upgrade_levels] caps their RPC APIs below them).")


class MoveAPI:
    def __init__(self) -> None:
        self.conductor = conductor_rpcapi.ComputeTaskAPI()
        self.compute = compute_rpcapi.ComputeAPI()

    @staticmethod
    def _new_flavor(ctx: RequestContext, flavor_ref: str) -> Flavor:
        """A flavor the caller may use; a disabled one is as good as missing (Nova)."""
        flavorid = str(flavor_ref).rstrip("/").rsplit("/")[-1]
        try:
            flavor = flavors.flavor_get_by_flavorid(
                flavorid, None if ctx.is_admin else ctx.project_id)
        except exception.FlavorNotFound:
            raise FlavorNotLocated() from None
        if flavor.disabled:
            raise FlavorNotLocated()
        return flavor

    def _check_movable(self, ctx: RequestContext, instance: Instance, action: str) -> Flavor:
        if not (self.compute.client.can_send_version("1.5")
                and self.conductor.client.can_send_version("1.1")):
            raise MovesNotAvailable()
        guards.check_lock(ctx, instance)
        guards.check_host(instance)
        guards.check_state(instance, action, states.ALLOW_RESIZE)
        if instance.flavor is None:
            raise exception.Invalid(f"Instance {instance.uuid} has no flavor.")
        return instance.flavor

    def resize(self, ctx: RequestContext, instance: Instance, flavor_ref: str) -> None:
        current = self._check_movable(ctx, instance, "resize")
        new = self._new_flavor(ctx, flavor_ref)
        if new.flavorid == current.flavorid:
            raise exception.CannotResizeToSameFlavor()
        if new.root_gb == 0 and current.root_gb != 0:
            raise exception.CannotResizeDisk(
                reason="Resize to zero disk flavor is not allowed.")
        self._check_upsize_quota(instance, current, new)
        self._start(ctx, instance, current, new, None, mig.RESIZE, "resize")

    @staticmethod
    def _check_upsize_quota(instance: Instance, current: Flavor, new: Flavor) -> None:
        """A bigger flavor must fit the project's cores and ram quota (Nova's upsize
        check: only growth counts); 403 naming what would go over."""
        deltas = {"cores": new.vcpus - current.vcpus, "ram": new.memory_mb - current.memory_mb}
        project = instance.project_id or ""
        limits = quotas.limits(project)
        used = instances.instance_usage(project)
        overs = [r for r, delta in deltas.items()
                 if delta > 0 and limits[r] >= 0 and used[r] + delta > limits[r]]
        if overs:
            raise exception.TooManyInstances(
                overs=", ".join(overs), req=", ".join(str(deltas[r]) for r in overs),
                used=", ".join(str(used[r]) for r in overs),
                allowed=", ".join(str(limits[r]) for r in overs))

    def migrate(self, ctx: RequestContext, instance: Instance, host: str | None) -> None:
        current = self._check_movable(ctx, instance, "migrate")
        if host is not None:
            if host == instance.host:
                raise CannotMigrateToSameHost()
            if not compute_nodes.compute_node_get_by_host(host):
                raise HostNotFoundForMove(host=host)
        self._start(ctx, instance, current, current, host, mig.MIGRATION, "migrate")

    def live_migrate(self, ctx: RequestContext, instance: Instance, host: str | None,
                     block_migration: bool | str, force: bool = False) -> None:
        """A running (or paused) server moved without stopping: the conductor asks the
        scheduler (an admin's `host` still judged by the filters unless `force`d) and
        the source hands the guest to the destination."""
        if not (self.compute.client.can_send_version("1.15")
                and self.conductor.client.can_send_version("1.3")):
            raise MovesNotAvailable()
        guards.check_lock(ctx, instance)
        guards.check_host(instance)
        guards.check_state(instance, "live_migrate", states.ALLOW_LIVE_MIGRATE)
        if host is not None:
            if host == instance.host:
                raise CannotMigrateToSameHost()
            if not compute_nodes.compute_node_get_by_host(host):
                raise HostNotFoundForMove(host=host)
        instances.instance_update(instance.uuid, {"task_state": states.MIGRATING},
                                  expected_task_state=[None])
        actions.action_start(ctx, instance.uuid, "live-migration")
        self.conductor.live_migrate_instance(ctx, instance.uuid, host, force)

    def _live_migration(self, ctx: RequestContext, instance: Instance, migration_id: str,
                        action: str, label: str, task_states: tuple,
                        allowed: tuple[str, ...], method: str) -> Migration:
        """The in-progress live migration an abort or force-complete acts on, checked
        as Nova checks it (lock and states 409, unknown 404, wrong status 400), its
        action recorded."""
        if not self.compute.client.can_send_version("1.17"):
            raise MovesNotAvailable()
        guards.check_lock(ctx, instance)
        guards.check_state(instance, label, *task_states)
        migration = migrations.migration_get_by_id_and_instance(migration_id, instance.uuid)
        if migration.status not in allowed:
            raise exception.InvalidMigrationState(
                migration_id=migration_id, instance_uuid=instance.uuid,
                state=migration.status, method=method)
        actions.action_start(ctx, instance.uuid, action)
        return migration

    def live_migrate_force_complete(self, ctx: RequestContext, instance: Instance,
                                    migration_id: str) -> None:
        migration = self._live_migration(
            ctx, instance, migration_id, "live_migration_force_complete", "force_complete",
            ((states.ACTIVE,), (states.MIGRATING,)), (mig.RUNNING,), "force complete")
        self.compute.live_migration_force_complete(ctx, migration.source_compute or "",
                                                   instance, migration)

    def live_migrate_abort(self, ctx: RequestContext, instance: Instance, migration_id: str,
                           in_queue: bool) -> None:
        """From 2.65 a migration the source has not started yet can be aborted too."""
        allowed = (mig.RUNNING, mig.PREPARING) if in_queue else (mig.RUNNING,)
        migration = self._live_migration(
            ctx, instance, migration_id, "live_migration_cancel", "abort live migration",
            (None, (states.MIGRATING,)), allowed, "abort live migration")
        self.compute.live_migration_abort(ctx, migration.source_compute or "", instance,
                                          migration)

    def evacuate(self, ctx: RequestContext, instance: Instance, host: str | None,
                 force: bool, stopped: bool) -> None:
        """Rebuild a server of a failed host elsewhere: only once its compute is down
        (dead, or forced down by an admin); `stopped` (2.95) leaves it SHUTOFF there."""
        if not (self.compute.client.can_send_version("1.16")
                and self.conductor.client.can_send_version("1.4")):
            raise MovesNotAvailable()
        source = guards.check_host(instance)
        guards.check_state(instance, "evacuate", states.ALLOW_EVACUATE)
        try:
            service = services.service_get_by_host_and_binary(source, "novalite-compute")
        except exception.ComputeHostNotFound:
            service = None
        if service is not None and liveness.service_is_up(service):
            raise ComputeServiceInUse(host=source)
        instance = instances.instance_update(instance.uuid,
                                             {"task_state": states.REBUILDING},
                                             expected_task_state=[None])
        actions.action_start(ctx, instance.uuid, "evacuate")
        instance_action.send(ctx, instance, "evacuate", events.API)
        self.conductor.evacuate_instance(ctx, instance.uuid, host, force, stopped)

    def _start(self, ctx: RequestContext, instance: Instance, current: Flavor, new: Flavor,
               host: str | None, migration_type: str, action: str) -> None:
        """Claim the instance (a racing request loses with a 409), keep both flavors,
        record the action, cast the move to the conductor."""
        migrations.instance_update_flavor(instance.uuid, {"task_state": states.RESIZE_PREP,
                                                          "progress": 0},
                                          [None], current, current, new)
        actions.action_start(ctx, instance.uuid, action)
        self.conductor.migrate_server(ctx, instance.uuid, new, host, migration_type)

    @staticmethod
    def _finished(ctx: RequestContext, instance: Instance, action: str) -> Migration:
        guards.check_lock(ctx, instance)
        guards.check_state(instance, action, (states.RESIZED,))
        try:
            return migrations.migration_get_by_instance_and_status(instance.uuid,
                                                                   mig.FINISHED)
        except exception.NotFound:
            raise NotResized() from None

    def confirm_resize(self, ctx: RequestContext, instance: Instance) -> None:
        migration = self._finished(ctx, instance, "confirmResize")
        migration = migrations.migration_update(migration.uuid, {"status": mig.CONFIRMING})
        actions.action_start(ctx, instance.uuid, "confirmResize")
        self.compute.confirm_resize(ctx, migration.source_compute or "", instance, migration)

    def revert_resize(self, ctx: RequestContext, instance: Instance) -> None:
        migration = self._finished(ctx, instance, "revertResize")
        instance = instances.instance_update(
            instance.uuid, {"task_state": states.RESIZE_REVERTING}, expected_task_state=[None])
        migration = migrations.migration_update(migration.uuid, {"status": mig.REVERTING})
        actions.action_start(ctx, instance.uuid, "revertResize")
        self.compute.revert_resize(ctx, migration.dest_compute or "", instance, migration)

    def confirm_on_delete(self, ctx: RequestContext, instance: Instance) -> None:
        """A server deleted in VERIFY_RESIZE is confirmed first, so its source lets go of
        the old guest and the migration's allocation (Nova's _confirm_resize_on_deleting)."""
        try:
            migration = migrations.migration_get_by_instance_and_status(instance.uuid,
                                                                        mig.FINISHED)
        except exception.NotFound:
            return
        migration = migrations.migration_update(migration.uuid, {"status": mig.CONFIRMING})
        self.compute.confirm_resize(ctx, migration.source_compute or "", instance, migration)
