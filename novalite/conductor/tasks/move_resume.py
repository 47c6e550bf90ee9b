"""Resuming a move from where an earlier handling of its message left it.

The conductor's move messages (migrate_server, live_migrate_instance, evacuate_instance,
unshelve_instance) are acknowledged only once handled, so one taken by a conductor killed
half-way is delivered again, to its successor or to another conductor. The request's own
traces say how far it got, and are read before anything is redone:

- its conductor event (conductor_migrate_server, ...) finished: the move was handed to a
  compute, or rolled back with its reason: nothing to do;
- the instance gone, or out of the task state the API set for the move (a delete, an
  admin's reset, a roll-back before anything was recorded): nothing to do;
- otherwise the move starts again under the event left open. The migration recorded for
  the request (its uuid derives from the request id, so a second handling finds it)
  first gives back what it held: the source allocation to the instance, replacing any
  destination claim, in one placement write. An unshelve has no migration: an offloaded
  instance holds no allocation of its own, so what it holds is the earlier handling's
  claim, freed.

What is left is the instant between the event's finish and the cast to the compute: the
move is then taken as handed on (a duplicate move would be worse than a lost one, which
waits in its task state for an admin's reset, as in Nova).
"""

from __future__ import annotations

import logging
import uuid as uuidlib

from novalite import exception
from novalite.clients import placement as placement_client
from novalite.context import RequestContext
from novalite.db.api import actions, instances, migrations
from novalite.objects.instance import Instance
from novalite.objects.migration import Migration

LOG = logging.getLogger(__name__)

_REQUESTS = uuidlib.UUID("6c1c3f4e-2f0a-4a51-9d7e-5b0f2a8c9e17")


def begin(ctx: RequestContext, instance_uuid: str, event: str, task_state: str
          ) -> tuple[Instance, bool] | None:
    """The instance to move, with the request's conductor `event` started, and whether an
    earlier handling of the message had started it; None when there is nothing to do."""
    finished = actions.event_finish_times(ctx, instance_uuid, event)
    if any(finished):
        LOG.info("Instance %s: %s of request %s already ran; this delivery is dropped",
                 instance_uuid, event, ctx.request_id)
        return None
    try:
        instance = instances.instance_get(instance_uuid)
    except exception.InstanceNotFound:
        return None
    if instance.task_state != task_state:
        LOG.info("Instance %s is no longer in %s (now %s): %s of request %s is dropped",
                 instance_uuid, task_state, instance.task_state, event, ctx.request_id)
        return None
    if not finished:
        actions.action_event_start(ctx, instance_uuid, event)
    return instance, bool(finished)


def migration_uuid(ctx: RequestContext, instance_uuid: str) -> str:
    """The uuid of the migration the request records: the same for every handling."""
    return str(uuidlib.uuid5(_REQUESTS, f"{ctx.request_id}/{instance_uuid}"))


def migration_for(ctx: RequestContext, migration: Migration) -> Migration:
    """`migration` recorded; or, recorded by an earlier handling, what it held given back
    to the instance and its status and destination as `migration` has them."""
    try:
        earlier = migrations.migration_get(migration.uuid)
    except exception.NotFound:
        return migrations.migration_create(migration)
    if placement_client.report_client().move_allocations(
            ctx, earlier.uuid, migration.instance_uuid, source_type="MIGRATION",
            target_type="INSTANCE"):
        LOG.info("Instance %s: the allocation of migration %s, recorded by an earlier "
                 "handling of request %s, was given back", migration.instance_uuid,
                 earlier.uuid, ctx.request_id)
    return migrations.migration_update(earlier.uuid, {
        "status": migration.status, "dest_compute": None, "dest_node": None})


def forget_claim(ctx: RequestContext, instance: Instance) -> None:
    """Free the claim an earlier handling of an unshelve made for the offloaded
    `instance` before it died."""
    placement_client.free_allocations(ctx, instance.uuid)
