"""Resize and cold migration (Nova's MigrationTask): record the migration, move the
instance's source allocation to the migration's uuid (so the scheduler claims the
destination for the instance itself), ask the scheduler with the request spec updated for
the move, and hand the move to the chosen host's prep_resize. A destination that refuses
sends the move back here to the next alternate.

Every failure before a destination takes the move rolls it back: the migration in
`error`, the source allocation given back to the instance (replacing any destination
claim, in one atomic placement write, so exactly one allocation is left), the instance
back in its state with a fault saying why.
"""

from __future__ import annotations

import logging

from novalite import exception
from novalite.clients import placement as placement_client
from novalite.clients.placement import Claim
from novalite.compute import rpcapi as compute_rpcapi
from novalite.compute import server_groups
from novalite.conductor.tasks import move_resume
from novalite.conductor.tasks.base import TaskBase
from novalite.conf import CONF
from novalite.context import RequestContext
from novalite.db.api import actions, instances, migrations, request_specs
from novalite.objects import migration as mig
from novalite.objects import states
from novalite.objects.flavor import Flavor
from novalite.objects.instance import Instance
from novalite.objects.migration import Migration
from novalite.objects.request_spec import Destination, RequestSpec, Selection
from novalite.scheduler import rpcapi as scheduler_rpcapi

LOG = logging.getLogger(__name__)

MIGRATE_EVENT = "conductor_migrate_server"
RESCHEDULE_EVENT = "conductor_reschedule_move"


def move_spec(spec: RequestSpec, instance: Instance, flavor: Flavor, host: str | None,
              migration_type: str) -> RequestSpec:
    """The stored request spec asked again for a move: the new flavor, one instance,
    the source host left out unless a resize may stay ([DEFAULT]
    allow_resize_to_same_host), the admin's host as requested destination; the server
    group, zone and hints are kept, a boot's forced host is not (Nova's moves ignore it)."""
    same_host_ok = migration_type == mig.RESIZE and CONF.allow_resize_to_same_host
    spec.instance_uuid = instance.uuid
    spec.flavor = flavor
    spec.num_instances = spec.min_count = 1
    spec.retry = None
    spec.force_hosts, spec.force_nodes = [], []
    spec.ignore_hosts = [] if same_host_ok or not instance.host else [instance.host]
    spec.requested_destination = Destination(host=host) if host else None
    spec.availability_zone = spec.availability_zone or instance.availability_zone
    return spec


def end_move(ctx: RequestContext, instance_uuid: str, migration: Migration,
             exc: Exception, event: str) -> None:
    """Undo a move no destination took: the source allocation back to the instance
    (replacing any destination claim), the migration in error, the fault, then the
    instance idle in its state again (ERROR for an unexpected failure)."""
    client = placement_client.report_client()
    try:
        if not client.move_allocations(ctx, migration.uuid, instance_uuid,
                                       source_type="MIGRATION", target_type="INSTANCE"):
            LOG.warning("Migration %s held no allocation to give back to %s",
                        migration.uuid, instance_uuid)
    except exception.NovaliteException as exc_:
        LOG.error("Could not give the allocation of migration %s back to %s: %s",
                  migration.uuid, instance_uuid, exc_.format_message())
    migrations.migration_update(migration.uuid, {"status": mig.ERROR})
    message = exception.fault_message(exc)
    details = exception.format_tb(exc)
    code = getattr(exc, "code", 500)
    actions.fault_create(instance_uuid, code if isinstance(code, int) else 500, message,
                         details)
    expected = isinstance(exc, exception.NoValidHost | exception.MoveInterrupted)
    values = {"task_state": None} if expected else {"task_state": None,
                                                    "vm_state": states.ERROR}
    try:
        instance = instances.instance_get(instance_uuid)
        if instance.flavor is not None:
            migrations.instance_update_flavor(instance_uuid, values,
                                              [instance.task_state], instance.flavor,
                                              None, None)
    except (exception.InstanceNotFound, exception.UnexpectedTaskStateError):
        return  # deleted meanwhile
    actions.action_event_finish(ctx, instance_uuid, event, "Error", traceback=details)


def hand_on(ctx: RequestContext, compute: compute_rpcapi.ComputeAPI, instance: Instance,
            migration: Migration, spec: RequestSpec, selection: Selection,
            alternates: list[Selection], event: str) -> None:
    """Name the destination on the migration and cast prep_resize to it."""
    migration = migrations.migration_update(migration.uuid, {
        "dest_compute": selection.service_host, "dest_node": selection.nodename})
    actions.action_event_finish(ctx, instance.uuid, event, "Success")
    compute.prep_resize(ctx, selection.service_host, instance, spec.flavor, migration, spec,
                        alternates, selection.nodename)


class MigrationTask(TaskBase):
    def __init__(self, ctx: RequestContext, instance_uuid: str, flavor: Flavor,
                 host: str | None, migration_type: str,
                 scheduler: scheduler_rpcapi.SchedulerAPI,
                 compute: compute_rpcapi.ComputeAPI) -> None:
        super().__init__(ctx)
        self.instance_uuid = instance_uuid
        self.flavor = flavor
        self.host = host
        self.migration_type = migration_type
        self.scheduler = scheduler
        self.compute = compute
        self.migration: Migration | None = None

    def _execute(self) -> None:
        ctx = self.ctx
        begun = move_resume.begin(ctx, self.instance_uuid, MIGRATE_EVENT,
                                  states.RESIZE_PREP)
        if begun is None:
            return
        instance, _ = begun
        old = instance.flavor
        self.migration = move_resume.migration_for(ctx, Migration(
            uuid=move_resume.migration_uuid(ctx, instance.uuid), instance_uuid=instance.uuid,
            migration_type=self.migration_type, status=mig.PRE_MIGRATING,
            source_compute=instance.host, source_node=instance.node,
            old_instance_type_id=old.id if old else None,
            new_instance_type_id=self.flavor.id, user_id=instance.user_id,
            project_id=instance.project_id))
        if not placement_client.report_client().move_allocations(
                ctx, instance.uuid, self.migration.uuid):
            LOG.warning("Instance %s held no allocation to move to migration %s",
                        instance.uuid, self.migration.uuid)
        spec = move_spec(request_specs.request_spec_get(instance.uuid), instance,
                         self.flavor, self.host, self.migration_type)
        server_groups.setup_instance_group(spec)
        host_lists = self.scheduler.select_destinations(ctx, spec, [instance.uuid],
                                                        return_alternates=True)
        hand_on(ctx, self.compute, instance, self.migration, spec, host_lists[0][0],
                host_lists[0][1:], MIGRATE_EVENT)

    def rollback(self, exc: Exception) -> None:
        if self.migration is None:
            actions.fault_create(self.instance_uuid, 500, exception.fault_message(exc))
            instances.instance_update(self.instance_uuid, {"task_state": None})
            return
        end_move(self.ctx, self.instance_uuid, self.migration, exc, MIGRATE_EVENT)


class RescheduleMoveTask(TaskBase):
    """The destination refused (and dropped its claim): claim the next alternate that
    still has room and hand the move to it, or end the move."""

    def __init__(self, ctx: RequestContext, instance_uuid: str, migration: Migration,
                 spec: RequestSpec, host_list: list[Selection], reason: str,
                 compute: compute_rpcapi.ComputeAPI) -> None:
        super().__init__(ctx)
        self.instance_uuid = instance_uuid
        self.migration = migration
        self.spec = spec
        self.host_list = host_list
        self.reason = reason
        self.compute = compute

    def _execute(self) -> None:
        actions.action_event_start(self.ctx, self.instance_uuid, RESCHEDULE_EVENT)
        instance = instances.instance_get(self.instance_uuid)
        client = placement_client.report_client()
        for index, selection in enumerate(self.host_list):
            if selection.allocation_request is None or client.claim_resources(
                    self.ctx, instance.uuid, selection.allocation_request,
                    instance.project_id or "", instance.user_id or "") is not Claim.REFUSED:
                hand_on(self.ctx, self.compute, instance, self.migration, self.spec,
                        selection, self.host_list[index + 1:], RESCHEDULE_EVENT)
                return
        raise exception.MaxRetriesExceeded(reason=(
            f"Exhausted all hosts available for retrying the move of instance "
            f"{instance.uuid}. Last error: {self.reason}"))

    def rollback(self, exc: Exception) -> None:
        end_move(self.ctx, self.instance_uuid, self.migration, exc, RESCHEDULE_EVENT)
