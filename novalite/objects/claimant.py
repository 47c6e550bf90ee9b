"""Whom a placement claim for an instance serves, read from the instance once the claim
is in (the claimant claims first and reads second, whoever ends a build writes first and
frees second: one of the two always sees the other).

A build's request can be handled twice at once: a message published again after a lost
connection, a call sent again after its reply queue was lost. Both handlings claim for
the same consumer, and placement answers the second with the first's allocations when
they are the same (`Claim.FOUND`). Such a claim is the other handling's once that one
placed the instance: giving it back would leave a live server holding nothing.
"""

from __future__ import annotations

import enum
from typing import Protocol

from novalite.objects import states

# The task states of a move, an evacuation or an unshelve asking for its destination.
_MOVING = frozenset((states.RESIZE_PREP, states.UNSHELVING, states.MIGRATING,
                     states.REBUILDING))


class Claimant(enum.Enum):
    WAITING = "waiting"  # still waits for its host: the claim is its own
    PLACED = "placed"  # rests on a host already: what it holds there is its own
    GONE = "gone"  # deleted, being deleted, or resting on no host (ERROR, offloaded)


class Standing(Protocol):
    """What of an instance tells whom a claim serves (an Instance, or the few columns
    read for it alone)."""
    @property
    def vm_state(self) -> str | None: ...
    @property
    def task_state(self) -> str | None: ...
    @property
    def host(self) -> str | None: ...


def claimant(instance: Standing | None) -> Claimant:
    """What the instance (None: deleted) makes of a claim for it."""
    if instance is None or instance.task_state == states.DELETING:
        return Claimant.GONE
    if instance.task_state in _MOVING or instance.vm_state == states.BUILDING:
        return Claimant.WAITING
    return Claimant.PLACED if instance.host else Claimant.GONE
