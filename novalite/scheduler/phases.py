"""Where one scheduling request spent its time, by phase, logged with the request so an
operator or a benchmark reads the breakdown (placement query, host-state refresh,
filters, weighers, claim) without a profiler."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator


class Phases:
    def __init__(self) -> None:
        self.ms: dict[str, float] = {}

    @contextlib.contextmanager
    def timed(self, name: str) -> Iterator[None]:
        """Add the block's wall time to `name` (a phase may run once per instance)."""
        started = time.perf_counter()
        try:
            yield
        finally:
            elapsed = (time.perf_counter() - started) * 1000
            self.ms[name] = self.ms.get(name, 0.0) + elapsed

    def __str__(self) -> str:
        return ", ".join(f"{name} {ms:.1f} ms" for name, ms in self.ms.items())
