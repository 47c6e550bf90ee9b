"""Moves whose conductor died holding them where nobody delivers their messages again
(the all-in-one's in-process transport; a broker redelivers them instead, see
move_resume). At the conductor's start each is ended as a move no destination took:
its migration's allocation back to the instance, the migration in error, the server
idle where it was, with a fault saying why, and its conductor event finished. Its
request (a new flavor, a requested host) is kept nowhere it could be sent again from."""

from __future__ import annotations

import datetime
import logging

from novalite import exception
from novalite.clients import placement as placement_client
from novalite.conductor.tasks import evacuate, live_migrate, migrate, move_resume, unshelve
from novalite.context import RequestContext
from novalite.db.api import actions, instances, migrations
from novalite.objects import states

LOG = logging.getLogger(__name__)

# Each move's conductor event, and the task state the API set for the move.
_MOVES = {migrate.MIGRATE_EVENT: states.RESIZE_PREP, live_migrate.EVENT: states.MIGRATING,
          evacuate.EVENT: states.REBUILDING, unshelve.EVENT: states.UNSHELVING}


def end_interrupted(started: datetime.datetime) -> None:
    """End the moves whose conductor event opened before `started` is still open."""
    for uuid, request_id, user_id, project_id, event in actions.open_events(
            list(_MOVES), started):
        ctx = RequestContext(user_id=user_id, project_id=project_id, request_id=request_id)
        try:
            _end(ctx, uuid, event)
        except exception.NovaliteException as exc:  # the next start tries again
            LOG.error("Could not end the interrupted move of %s: %s", uuid,
                      exc.format_message())


def _end(ctx: RequestContext, uuid: str, event: str) -> None:
    interrupted = exception.MoveInterrupted()
    if instances.instance_get(uuid).task_state != _MOVES[event]:
        actions.action_event_finish(ctx, uuid, event, "Error")  # ended some other way
        return
    LOG.warning("Instance %s: %s", uuid, interrupted.format_message())
    try:
        migration = migrations.migration_get(move_resume.migration_uuid(ctx, uuid))
    except exception.NotFound:
        migration = None
    if migration is not None:
        migrate.end_move(ctx, uuid, migration, interrupted, event)
        return
    if event == unshelve.EVENT:  # an offloaded instance holds only the dead one's claim
        placement_client.free_allocations(ctx, uuid)
    actions.fault_create(uuid, 500, interrupted.format_message())
    instances.instance_update(uuid, {"task_state": None})
    actions.action_event_finish(ctx, uuid, event, "Error")
