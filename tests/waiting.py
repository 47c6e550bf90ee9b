"""The one way tests wait for something that happens in another thread or process.

Prefer an event: `InProcessTransport.join()` awaits a cast chain in the all-in-one. What
no event announces (a heartbeat row, a console line, a process's log) is polled here, with
a deadline and a message that says what was awaited.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def wait_for(predicate: Callable[[], T], timeout: float = 15.0, what: str = "condition",
             interval: float = 0.02,
             ignore: tuple[type[BaseException], ...] = ()) -> T:
    """The first truthy value of `predicate()`; AssertionError after `timeout` seconds.
    Exceptions of the `ignore` types count as "not yet" (a service still starting)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            value = predicate()
        except ignore:
            value = None  # type: ignore[assignment]
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(f"{what} not met within {timeout}s")
        time.sleep(interval)
