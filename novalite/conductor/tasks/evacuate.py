"""Evacuation (Nova's conductor rebuild_instance for a server whose host is down): record
an evacuation, move the instance's allocation to it (the dead source's resources stay
held until that host comes back and cleans up), ask the scheduler for another host (an
admin's named one, forced past the filters from 2.29 until 2.68), which claims it for the
instance, and have that host's compute rebuild the server.

A failure before the destination takes it rolls back as a move's does
(novalite.conductor.tasks.migrate.end_move): the allocation back to the instance, the
evacuation in error, the server still on its failed host, idle, with the reason.
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
from novalite.notifications import instance_action
from novalite.objects import migration as mig
from novalite.objects import states
from novalite.objects.migration import Migration
from novalite.scheduler import rpcapi as scheduler_rpcapi

EVENT = "conductor_rebuild_server"
# instance.rebuild_scheduled is published as Nova's: by its conductor, under the name of
# the host the scheduler chose
CONDUCTOR = "novalite-conductor"


class EvacuateTask(TaskBase):
    def __init__(self, ctx: RequestContext, instance_uuid: str, host: str | None,
                 force: bool, stopped: bool, scheduler: scheduler_rpcapi.SchedulerAPI,
                 compute: compute_rpcapi.ComputeAPI) -> None:
        super().__init__(ctx)
        self.instance_uuid = instance_uuid
        self.host = host
        self.force = force
        self.stopped = stopped
        self.scheduler = scheduler
        self.compute = compute
        self.migration: Migration | None = None

    def _execute(self) -> None:
        ctx = self.ctx
        begun = move_resume.begin(ctx, self.instance_uuid, EVENT, states.REBUILDING)
        if begun is None:
            return
        instance, _ = begun
        flavor_id = instance.flavor.id if instance.flavor else None
        self.migration = move_resume.migration_for(ctx, Migration(
            uuid=move_resume.migration_uuid(ctx, instance.uuid), instance_uuid=instance.uuid,
            migration_type=mig.EVACUATION, status=mig.ACCEPTED,
            source_compute=instance.host, source_node=instance.node,
            old_instance_type_id=flavor_id, new_instance_type_id=flavor_id,
            user_id=instance.user_id, project_id=instance.project_id))
        placement_client.report_client().move_allocations(ctx, instance.uuid,
                                                          self.migration.uuid)
        spec = request_specs.request_spec_get(instance.uuid)
        image = spec.image
        spec = move_spec(spec, instance, instance.flavor or spec.flavor, self.host,
                         mig.EVACUATION)
        if self.force and self.host:
            spec.force_hosts, spec.requested_destination = [self.host], None
        server_groups.setup_instance_group(spec)
        selection = self.scheduler.select_destinations(ctx, spec, [instance.uuid],
                                                       return_alternates=False)[0][0]
        if not (self.force and self.host):  # Nova's scheduled rebuild: not a forced host
            instance_action.send(ctx, instance, "rebuild_scheduled", CONDUCTOR,
                                 selection.service_host)
        self.migration = migrations.migration_update(self.migration.uuid, {
            "status": mig.PRE_MIGRATING, "dest_compute": selection.service_host,
            "dest_node": selection.nodename})
        actions.action_event_finish(ctx, instance.uuid, EVENT, "Success")
        if image is None:
            raise ValueError(f"Instance {instance.uuid} has no image to rebuild from")
        self.compute.evacuate_instance(ctx, selection.service_host, instance, image,
                                       self.migration, self.stopped)

    def rollback(self, exc: Exception) -> None:
        if self.migration is None:
            instances.instance_update(self.instance_uuid, {"task_state": None})
            actions.fault_create(self.instance_uuid, 500, str(exc))
            return
        end_move(self.ctx, self.instance_uuid, self.migration, exc, EVENT)
