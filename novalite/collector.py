"""Pausing the cyclic garbage collector around bulk construction.

Building thousands of long-lived objects at once (a scheduler's 10,000 host states)
allocates enough containers to trigger many collector passes, the full ones walking the
whole heap; none of what is built is garbage. Those passes were ~40% of a full host-state
refresh at 10,000 hosts. Paused, they come due at once when the collector is back: what a
process builds to keep for its whole life is moved out of its reach instead (`freeze`).
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def paused() -> Iterator[None]:
    """The collector off while the block runs. Collection is enabled again only if it
    was enabled on entry, so nested or concurrent pauses end with it enabled exactly
    when it was before the first of them."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def freeze() -> None:
    """Every object alive now out of the collector's generations, for good (gc.freeze):
    for what a process built once to keep (a scheduler's first host table). Otherwise
    the first collection after building it walked the whole heap, as long as the
    building itself at 10,000 hosts, and each full collection later walked it again.
    Cyclic garbage alive at that moment is never freed: for moments as rare as a start."""
    gc.freeze()
