"""Periodic tasks: manager methods decorated with @periodic_task run on one thread."""

from __future__ import annotations

import heapq
import itertools
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
    """A manager's periodic tasks. They run on a thread shared by every runner of the
    process in the same `group` (by default its own): the hosts one compute process
    simulates run theirs in turn, as the nodes of one Nova compute do, rather than on
    a thread each (10,000 of them for 10,000 hosts)."""

    def __init__(self, manager: Any, name: str, group: str | None = None) -> None:
        self.name = name
        self.group = group or name
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
        self._running = threading.Lock()  # held while one of its tasks runs
        self.generation = 0  # a start's entries in the group's queue; bumped by stop

    def start(self) -> None:
        if self.tasks:
            _group(self.group).add(self)

    def run_task(self, index: int, generation: int) -> bool:
        """Run one task unless the runner stopped since it was queued (then False)."""
        with self._running:
            if generation != self.generation:
                return False
            method = self.tasks[index][0]
            ctx = context.get_admin_context()
            token = ctx.activate()
            try:
                method(ctx)
            except Exception:
                LOG.exception("Periodic task %s failed; it runs again at its next interval",
                              method.__name__)
            finally:
                context.reset(token)
            return True

    def stop(self) -> None:
        """No task runs after this returns, unless one running overruns ten seconds."""
        self.generation += 1
        if self._running.acquire(timeout=10):
            self._running.release()
        if self.tasks:
            _group(self.group).remove(self)


class _Group:
    """The thread running the due tasks of a group's runners one after the other, each
    next due its interval after its run began."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._changed = threading.Condition()
        self._queue: list[tuple[float, int, PeriodicRunner, int, int]] = []  # a heap
        self._order = itertools.count()  # ties in time keep the order of queueing
        self._runners: set[PeriodicRunner] = set()
        self._thread: threading.Thread | None = None

    def add(self, runner: PeriodicRunner) -> None:
        now = time.monotonic()
        with self._changed:
            self._runners.add(runner)
            for index, (_, _, first) in enumerate(runner.tasks):
                self._push(now + first, runner, index, runner.generation)
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, daemon=True,
                                                name=f"periodic-{self.name}")
                self._thread.start()
            self._changed.notify()

    def remove(self, runner: PeriodicRunner) -> None:
        with self._changed:
            self._runners.discard(runner)
            self._changed.notify()

    def _push(self, due: float, runner: PeriodicRunner, index: int, generation: int) -> None:
        heapq.heappush(self._queue, (due, next(self._order), runner, index, generation))

    def _next(self) -> tuple[PeriodicRunner, int, int] | None:
        """The next task once it is due; None once no runner is left (the thread ends)."""
        with self._changed:
            while self._runners:
                if not self._queue:  # a runner stopping: its task was not queued again
                    self._changed.wait()
                    continue
                due, _, runner, index, generation = self._queue[0]
                if generation != runner.generation:
                    heapq.heappop(self._queue)  # queued before a stop
                elif due > (now := time.monotonic()):
                    self._changed.wait(due - now)
                else:
                    heapq.heappop(self._queue)
                    return runner, index, generation
            self._queue.clear()
            self._thread = None  # the next add starts another
            return None

    def _loop(self) -> None:
        while (task := self._next()) is not None:
            runner, index, generation = task
            began = time.monotonic()
            if runner.run_task(index, generation):
                with self._changed:
                    self._push(began + runner.tasks[index][1], runner, index, generation)


_GROUPS: dict[str, _Group] = {}
_GROUPS_LOCK = threading.Lock()


def _group(name: str) -> _Group:
    with _GROUPS_LOCK:
        return _GROUPS.setdefault(name, _Group(name))
