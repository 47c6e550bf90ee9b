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
from novalite.context import RequestContext

LOG = logging.getLogger(__name__)

_BATCH = 500  # runs of one task prefetched together at most


def periodic_task(spacing: float | Callable[[], float], run_immediately: bool = False,
                  prefetch: Callable[[RequestContext, list[Any]], list[Any]] | None = None):
    """Mark a manager method `method(self, ctx)` to run every `spacing` seconds.

    `spacing` may be a callable, so an interval read from configuration is read when the
    service starts rather than when the module is imported.

    `prefetch(ctx, managers)`: when the task comes due on several runners of a group at
    once (the hosts one compute process simulates), what each of them would read first,
    read for all of them at once (a compute's query for all its hosts rather than one
    per host); each run then gets its item as `method(self, ctx, prefetched)`. Alone, or
    when the prefetch fails, a run gets None and reads for itself.
    """

    def decorator(func: Callable) -> Callable:
        func._periodic_spacing = spacing  # type: ignore[attr-defined]
        func._periodic_immediate = run_immediately  # type: ignore[attr-defined]
        func._periodic_prefetch = prefetch  # type: ignore[attr-defined]
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

    def run_task(self, index: int, generation: int, prefetched: Any = None) -> bool:
        """Run one task unless the runner stopped since it was queued (then False)."""
        with self._running:
            if generation != self.generation:
                return False
            method = self.tasks[index][0]
            ctx = context.get_admin_context()
            token = ctx.activate()
            try:
                if method._periodic_prefetch is None:
                    method(ctx)
                else:
                    method(ctx, prefetched)
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


Due = tuple[PeriodicRunner, int, int]  # a runner, its task's index, its generation


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

    def _next(self) -> list[Due] | None:
        """The next due task, with the same task of every other runner due by now if it
        prefetches (at most _BATCH); None once no runner is left (the thread ends)."""
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
                    return [(runner, index, generation), *self._due_alike(runner, index, now)]
            self._queue.clear()
            self._thread = None  # the next add starts another
            return None

    def _due_alike(self, runner: PeriodicRunner, index: int, now: float) -> list[Due]:
        """The other runners' entries due by `now` for the same prefetching task, taken
        from the queue; the due entries of other tasks stay queued, in their order."""
        func = runner.tasks[index][0].__func__
        if func._periodic_prefetch is None:
            return []
        alike: list[Due] = []
        other = []
        while self._queue and self._queue[0][0] <= now and len(alike) < _BATCH - 1:
            entry = heapq.heappop(self._queue)
            _, _, peer, peer_index, generation = entry
            if generation != peer.generation:
                continue  # queued before a stop
            if peer.tasks[peer_index][0].__func__ is func:
                alike.append((peer, peer_index, generation))
            else:
                other.append(entry)
        for entry in other:
            heapq.heappush(self._queue, entry)
        return alike

    def _loop(self) -> None:
        while (due := self._next()) is not None:
            for (runner, index, generation), prefetched in zip(due, _prefetch(due),
                                                                strict=True):
                began = time.monotonic()
                if runner.run_task(index, generation, prefetched):
                    with self._changed:
                        self._push(began + runner.tasks[index][1], runner, index,
                                   generation)


def _prefetch(due: list[Due]) -> list[Any]:
    """What the task's prefetch reads for each of these runners (None each when there is
    one runner, the task does not prefetch, or the prefetch failed)."""
    nothing = [None] * len(due)
    first, index, _ = due[0]
    method = first.tasks[index][0]
    prefetch = method._periodic_prefetch
    if prefetch is None or len(due) == 1:
        return nothing
    ctx = context.get_admin_context()
    token = ctx.activate()
    try:
        fetched = prefetch(ctx, [runner.tasks[i][0].__self__ for runner, i, _ in due])
        if len(fetched) != len(due):
            raise ValueError(f"{len(fetched)} items prefetched for {len(due)} runs")
        return fetched
    except Exception:
        LOG.exception("Prefetching for %d runs of periodic task %s failed; each reads for "
                      "itself", len(due), method.__name__)
        return nothing
    finally:
        context.reset(token)


_GROUPS: dict[str, _Group] = {}
_GROUPS_LOCK = threading.Lock()


def _group(name: str) -> _Group:
    with _GROUPS_LOCK:
        return _GROUPS.setdefault(name, _Group(name))
