"""Callers asking the same question at the same time share one answer: the first asks,
the others wait for its answer rather than asking again.

For questions whose answer anyone may be given a moment late (each caller checks what
it acts on some other way), and that are often asked together: a boot storm's scheduling
requests mostly ask placement for the same flavor's candidates. A question that fails is
not shared: each waiter then asks on its own, as it would have without sharing.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar, cast

V = TypeVar("V")


class _Flight(Generic[V]):
    __slots__ = ("answered", "landed", "value", "waiters")

    def __init__(self) -> None:
        self.landed = threading.Event()
        self.answered = False
        self.value: V | None = None
        self.waiters = 0  # callers that found this call running


class SingleFlight(Generic[V]):
    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._flying: dict[Hashable, _Flight[V]] = {}

    def ask(self, key: Hashable, question: Callable[[], V]) -> V:
        """`question`'s answer: from the call for `key` already running if there is one
        (waiting for it to end), else from calling it."""
        with self._guard:
            flight = self._flying.get(key)
            leads = flight is None
            if flight is None:
                flight = self._flying[key] = _Flight()
            else:
                flight.waiters += 1
        if not leads:
            flight.landed.wait()
            if flight.answered:
                return cast(V, flight.value)
            return question()
        try:
            flight.value = question()
            flight.answered = True
            return flight.value
        finally:
            with self._guard:
                del self._flying[key]
            flight.landed.set()
