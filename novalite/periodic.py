"""Periodic tasks: manager methods decorated with @periodic_task run on one thread."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from novalite import context

LOG = logging.getLogger(__name__)


def periodic_task(spacing: float | Callable[[], float], run_immediately: bool = False):
    """Mark a manager method `method(self, ctx)` to run every `spacing` seconds.

    `spacing` may be a callable, so an interval read from configuration is read when the
    service starts rather than when the module is imported.
    """

    def decorator(func: Callable) -> Callable:
        func._periodic_spacing = spacing  # type: ignore[attr-defined]
        func._periodic_immediate = run_immediately  # type: ignore[attr-defined]
        return func

    return decorator


class PeriodicRunner:
    def __init__(self, manager: Any, name: str) -> None:
        self.name = name
        self.tasks = []
        for attr in dir(type(manager)):
            func = getattr(type(manager), attr, None)
            spacing = getattr(func, "_periodic_spacing", None)
            if func is not None and spacing is not None:
                interval = spacing() if callable(spacing) else spacing
                if interval <= 0:
                    continue  # switched off by configuration
                first = 0.0 if func._periodic_immediate else interval
                self.tasks.append([getattr(manager, attr), float(interval), first])
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if not self.tasks:
            return
        start = time.monotonic()
        for task in self.tasks:
            task[2] += start
        self._thread = threading.Thread(target=self._loop, name=f"periodic-{self.name}",
                                        daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        while not self._stop.is_set():
            now = time.monotonic()
            for task in self.tasks:
                method, interval, due = task
                if now >= due:
                    task[2] = now + interval
                    self._run(method)
            next_due = min(task[2] for task in self.tasks)
            self._stop.wait(max(0.0, next_due - time.monotonic()))

    def _run(self, method: Callable) -> None:
        ctx = context.get_admin_context()
        token = ctx.activate()
        try:
            method(ctx)
        except Exception:
            LOG.exception("Periodic task %s failed; it runs again at its next interval",
                          method.__name__)
        finally:
            context.reset(token)

    def stop(self) -> None:
        self._stop.set()
        if self._thread:
            self._thread.join(timeout=10)
