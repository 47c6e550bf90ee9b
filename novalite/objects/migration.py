"""A migration record as services pass it around (Nova's Migration object): which move,
from where to where, in which status; its uuid is the placement consumer that holds the
source host's resources while the move is under way.

`old_flavor` and `new_flavor` are the instance's flavors of the move (Nova keeps them on
the instance; here they travel with the record, so a compute needs no extra lookup).
"""

from __future__ import annotations

import datetime

from novalite.objects import base
from novalite.objects.flavor import Flavor

RESIZE = "resize"
MIGRATION = "migration"
LIVE_MIGRATION = "live-migration"
EVACUATION = "evacuation"

# Nova's migration statuses on the cold path, in order.
PRE_MIGRATING = "pre-migrating"
MIGRATING = "migrating"
POST_MIGRATING = "post-migrating"
FINISHED = "finished"
CONFIRMING = "confirming"
CONFIRMED = "confirmed"
REVERTING = "reverting"
REVERTED = "reverted"
ERROR = "error"
FAILED = "failed"
# ... and on the live path
ACCEPTED = "accepted"
PREPARING = "preparing"
RUNNING = "running"
COMPLETED = "completed"
CANCELLED = "cancelled"  # an aborted live migration
DONE_STATUS = "done"  # an evacuation rebuilt elsewhere, its source not yet cleaned
# A move that still holds resources on its hosts (Nova's in-progress filter leaves out
# these final states).
DONE = (CONFIRMED, REVERTED, ERROR, FAILED, CANCELLED, COMPLETED, DONE_STATUS)


@base.register
class Migration(base.NovaliteObject):
    VERSION = "1.0"

    uuid: str
    instance_uuid: str
    migration_type: str = RESIZE
    status: str = PRE_MIGRATING
    id: int | None = None
    source_compute: str | None = None
    source_node: str | None = None
    dest_compute: str | None = None
    dest_node: str | None = None
    dest_host: str | None = None
    old_instance_type_id: int | None = None
    new_instance_type_id: int | None = None
    hidden: bool = False
    cross_cell_move: bool = False
    user_id: str | None = None
    project_id: str | None = None
    created_at: datetime.datetime | None = None
    updated_at: datetime.datetime | None = None
    old_flavor: Flavor | None = None
    new_flavor: Flavor | None = None

    @property
    def in_progress(self) -> bool:
        """Still holding resources: an evacuation holds its source's until that host
        comes back and cleans up (status done, then completed)."""
        return self.status not in DONE or (self.migration_type == EVACUATION
                                           and self.status == DONE_STATUS)
