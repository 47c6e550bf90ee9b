"""Live migration (Nova's LiveMigrationTask): record the migration, move the instance's
allocation to the migration (the source's), ask the scheduler for a destination (an
admin's host judged by the filters, or forced past them from 2.30) which claims it for
the instance, and hand the guest's move to the source compute.

A failure before the source takes it rolls back as a cold move's does (novalite.conductor
.tasks.migrate.end_move): the source allocation back to the instance, the migration in
error, the server where it was, idle, with the reason.
"""

from __future__ import annotations

from novalite.clients import placement as placement_client
from novalite.compute import rpcapi as compute_rpcapi
from novalite.compute import server_groups
from novalite.conductor.tasks import move_resume
from novalite.conductor.tasks.base import TaskBase
from novalite.conductor.tasks.migrate import end_move, move_spec
from novalite.context import RequestContext
from novalite.db.api import actions, instances, migrations, request_specs
from novalite.objects import migration as mig
from novalite.objects import states
from novalite.objects.migration import Migration
from novalite.scheduler import rpcapi as scheduler_rpcapi

EVENT = "conductor_live_migrate_instance"


class LiveMigrationTask(TaskBase):
    def __init__(self, ctx: RequestContext, instance_uuid: str, host: str | None,
                 force: bool, scheduler: scheduler_rpcapi.SchedulerAPI,
                 compute: compute_rpcapi.ComputeAPI) -> None:
        super().__init__(ctx)
        self.instance_uuid = instance_uuid
        self.host = host
        self.force = force
        self.scheduler = scheduler
        self.compute = compute
        self.migration: Migration | None = None

    def _execute(self) -> None:
        ctx = self.ctx
        begun = move_resume.begin(ctx, self.instance_uuid, EVENT, states.MIGRATING)
        if begun is None:
            return
        instance, _ = begun
        flavor_id = instance.flavor.id if instance.flavor else None
        self.migration = move_resume.migration_for(ctx, Migration(
            uuid=move_resume.migration_uuid(ctx, instance.uuid), instance_uuid=instance.uuid,
            migration_type=mig.LIVE_MIGRATION, status=mig.ACCEPTED,
            source_compute=instance.host, source_node=instance.node,
            old_instance_type_id=flavor_id, new_instance_type_id=flavor_id,
            user_id=instance.user_id, project_id=instance.project_id))
        placement_client.report_client().move_allocations(ctx, instance.uuid,
                                                          self.migration.uuid)
        spec = request_specs.request_spec_get(instance.uuid)
        spec = move_spec(spec, instance, instance.flavor or spec.flavor, self.host,
                         mig.LIVE_MIGRATION)
        if self.force and self.host:  # an admin's word (2.30 to 2.67): no filters
            spec.force_hosts, spec.requested_destination = [self.host], None
        server_groups.setup_instance_group(spec)
        selection = self.scheduler.select_destinations(ctx, spec, [instance.uuid],
                                                       return_alternates=False)[0][0]
        self.migration = migrations.migration_update(self.migration.uuid, {
            "status": mig.PREPARING, "dest_compute": selection.service_host,
            "dest_node": selection.nodename})
        actions.action_event_finish(ctx, instance.uuid, EVENT, "Success")
        self.compute.live_migration(ctx, instance.host or "", instance, self.migration)

    def rollback(self, exc: Exception) -> None:
        if self.migration is None:
            instances.instance_update(self.instance_uuid, {"task_state": None})
            actions.fault_create(self.instance_uuid, 500, str(exc))
            return
        end_move(self.ctx, self.instance_uuid, self.migration, exc, EVENT)
