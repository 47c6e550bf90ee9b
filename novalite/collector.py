"""Pausing the cyclic garbage collector around bulk construction.

Building thousands of long-lived objects at once (a scheduler's 10,000 host states)
allocates enough containers to trigger many collector passes, the full ones walking the
whole heap; none of what is built is garbage. Those passes were ~40% of a full host-state
refresh at 10,000 hosts.
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
