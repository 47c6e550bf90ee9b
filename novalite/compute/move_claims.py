"""What a resize or cold migration holds on a host besides the instance itself (Nova's
migration-based resource tracking): the destination's claim for the new flavor until the
instance lands, and the source's old flavor until the move is confirmed or reverted.
Both are held under the migration's uuid, as placement holds the source allocation."""

from __future__ import annotations

from novalite.objects.flavor import Flavor
from novalite.objects.instance import Instance
from novalite.objects.migration import Migration


def held_by_moves(host: str, placed: dict[str, Instance], migrations: list[Migration]
                  ) -> dict[str, tuple[str | None, Flavor]]:
    """{migration uuid: (node, flavor)} for the moves in progress from or to `host`;
    `placed` are the instances the database puts on the host."""
    held: dict[str, tuple[str | None, Flavor]] = {}
    for migration in migrations:
        if not migration.in_progress:
            continue
        old, new = migration.old_flavor, migration.new_flavor
        instance = placed.get(migration.instance_uuid)
        if instance is None:  # not (or no longer) here: the end of the move that is
            if migration.dest_compute == host and new is not None:
                held[migration.uuid] = (migration.dest_node, new)
            elif migration.source_compute == host and old is not None:
                held[migration.uuid] = (migration.source_node, old)
            continue
        if migration.source_compute == migration.dest_compute == host:
            # same host: whichever of the two flavors the instance does not use now
            current = instance.flavor.id if instance.flavor else None
            other = old if new is not None and new.id == current else new
            if other is not None:
                held[migration.uuid] = (migration.source_node, other)
    return held
