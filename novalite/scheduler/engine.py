"""Filtering and weighing over rows of the host table.

A filter or weigher with an array form (filter_array / weigh_array) answers for all rows
at once from the table's columns; one without (an operator's own, or a request the array
form does not cover) is asked host by host. Both give the same answer, bit for bit: the
per-host forms are the specification and tests/unit/scheduler/test_engine_equivalence.py
holds the array forms to it. `vectorized=False` runs everything host by host.
"""

from __future__ import annotations

import dataclasses
import functools

import numpy as np

from novalite.objects.request_spec import RequestSpec
from novalite.scheduler.decision import SAMPLE, Decision
from novalite.scheduler.filters import BaseHostFilter
from novalite.scheduler.host_state import HostState
from novalite.scheduler.host_table import HostTable
from novalite.scheduler.weighers import BaseHostWeigher, WeighedHost, scores


@dataclasses.dataclass
class Weighed:
    """The best hosts of one weighing, best first."""

    rows: np.ndarray
    weights: np.ndarray
    shares: dict[str, np.ndarray]  # each weigher's score, aligned with rows

    def hosts(self, table: HostTable) -> list[WeighedHost]:
        return [WeighedHost(table.states[row], float(self.weights[i]),
                            {name: float(s[i]) for name, s in self.shares.items()})
                for i, row in enumerate(self.rows.tolist())]


class Engine:
    def __init__(self, filters: list[BaseHostFilter], weighers: list[BaseHostWeigher],
                 vectorized: bool = True) -> None:
        self.filters = filters
        self.weighers = weighers
        self.vectorized = vectorized

    def filter(self, table: HostTable, rows: np.ndarray, spec: RequestSpec, index: int,
               decision: Decision) -> np.ndarray:
        """The rows that pass every filter that runs for instance `index`."""
        for flt in self.filters:
            if not len(rows):
                break
            if not flt.run_filter_for_index(index):
                continue
            passed = flt.filter_array(table, rows, spec) if self.vectorized else None
            if passed is None:
                states = table.states
                passed = np.fromiter((flt.host_passes(states[r], spec) for r in rows.tolist()),
                                     dtype=bool, count=len(rows))
            if not passed.all():
                removed = rows[~passed]
                named = [table.states[r] for r in removed[:SAMPLE].tolist()]
                decision.record(flt.name, len(removed), [s.host for s in named],
                                [flt.explain(s, spec) for s in named])
                rows = rows[passed]
        return rows

    def weigh(self, table: HostTable, rows: np.ndarray, spec: RequestSpec,
              keep: int) -> Weighed:
        """The `keep` best rows by weighted sum, ties in row order (as a stable sort of
        all hosts would give)."""
        total = np.zeros(len(rows))
        shares: dict[str, np.ndarray] = {}
        if len(rows) > 1:
            for weigher in self.weighers:
                raw = self._raw(weigher, table, rows, spec)
                if np.ndim(raw) == 0:  # every host weighs the same: all normalise to 0
                    shares[weigher.name] = np.zeros(len(rows))
                    continue
                score = scores(weigher, np.asarray(raw),
                               functools.partial(self._multipliers, weigher, table, rows))
                total += score
                shares[weigher.name] = score
        best = _top(total, keep)
        return Weighed(rows[best], total[best], {n: s[best] for n, s in shares.items()})

    def record_limits(self, state: HostState, spec: RequestSpec) -> None:
        """Filters record the limits a compute claim enforces (RamFilter's memory_mb, ...)
        in host_passes, which an array form skips: ask again for a chosen host."""
        if not self.vectorized:
            return
        for flt in self.filters:
            if type(flt).filter_array is not BaseHostFilter.filter_array:
                flt.host_passes(state, spec)

    def _raw(self, weigher: BaseHostWeigher, table: HostTable, rows: np.ndarray,
             spec: RequestSpec) -> np.ndarray | float:
        raw = weigher.weigh_array(table, rows, spec) if self.vectorized else None
        if raw is None:
            states = table.states
            raw = np.fromiter((weigher.weigh(states[r], spec) for r in rows.tolist()),
                              dtype=np.float64, count=len(rows))
        return raw

    def _multipliers(self, weigher: BaseHostWeigher, table: HostTable,
                     rows: np.ndarray) -> np.ndarray:
        if self.vectorized:
            return weigher.multipliers(table, rows)
        states = table.states
        return np.fromiter((weigher.weight_multiplier(states[r]) for r in rows.tolist()),
                           dtype=np.float64, count=len(rows))


def _top(weights: np.ndarray, keep: int) -> np.ndarray:
    """Positions of the `keep` largest weights, largest first, ties by position."""
    if keep < len(weights):
        threshold = np.partition(weights, len(weights) - keep)[len(weights) - keep]
        candidates = np.flatnonzero(weights >= threshold)
    else:
        candidates = np.arange(len(weights))
    order = np.argsort(-weights[candidates], kind="stable")
    return candidates[order][:keep]
