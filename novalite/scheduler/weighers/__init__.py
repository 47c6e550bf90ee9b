"""Host weighers: the contract, Nova's normalisation, and the built-in set.

Each weigher gives every host a raw weight; raw weights are normalised to [0, 1] across
the candidate hosts (min/max, or the weigher's own minval/maxval), multiplied by the
weigher's multiplier and summed. Higher wins. Built-ins register under the entry-point
group `novalite.scheduler.weighers`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np

from novalite import plugins
from novalite.conf import CONF
from novalite.objects.request_spec import RequestSpec
from novalite.scheduler import aggregates
from novalite.scheduler.host_state import HostState
from novalite.scheduler.host_table import HostTable

NAMESPACE = "novalite.scheduler.weighers"


class BaseHostWeigher:
    minval: float | None = None
    maxval: float | None = None
    # The option holding the multiplier, and its group; host aggregates may override it
    # with metadata named `multiplier_key` (default: the option's name; the smallest
    # value wins), as in Nova.
    multiplier_option: str | None = None
    multiplier_group = "filter_scheduler"
    multiplier_key: str | None = None

    def _configured_multiplier(self, option: str) -> float:
        return getattr(getattr(CONF, self.multiplier_group), option)

    def weight_multiplier(self, host_state: HostState) -> float:
        if self.multiplier_option is None:
            return 1.0
        return aggregates.min_number(host_state, self.multiplier_key or self.multiplier_option,
                                     self._configured_multiplier(self.multiplier_option))

    def weigh(self, host_state: HostState, spec: RequestSpec) -> float:
        raise NotImplementedError

    def weigh_array(self, table: HostTable, rows: np.ndarray,
                    spec: RequestSpec) -> np.ndarray | float | None:
        """weigh() for every row in `rows` at once, from the table's columns; a single
        number when every row weighs the same (the weigher tells no hosts apart in this
        request, so it is skipped); None when only the per-host form knows (the
        default, enough for an operator's weigher)."""
        return None

    def multipliers(self, table: HostTable, rows: np.ndarray) -> np.ndarray:
        """weight_multiplier() for every row, from the aggregates cached in the table."""
        if self.multiplier_option is None:
            return np.ones(len(rows))
        return table.aggregate_min(self.multiplier_key or self.multiplier_option,
                                   self._configured_multiplier(self.multiplier_option))[rows]

    def needs_instances(self, spec: RequestSpec) -> bool:
        """As BaseHostFilter.needs_instances."""
        return False

    @property
    def name(self) -> str:
        return type(self).__name__


@dataclasses.dataclass
class WeighedHost:
    host_state: HostState
    weight: float = 0.0
    by_weigher: dict[str, float] = dataclasses.field(default_factory=dict)


def normalize(weights: np.ndarray, minval: float | None = None,
              maxval: float | None = None) -> np.ndarray:
    """Scale to [0, 1]; equal weights all become 0, as in Nova."""
    weights = np.asarray(weights, dtype=np.float64)
    if not len(weights):
        return weights
    low = weights.min() if minval is None else minval
    high = weights.max() if maxval is None else maxval
    if low == high:
        return np.zeros(len(weights))
    return (weights - low) / (high - low)


def scores(weigher: BaseHostWeigher, raw: np.ndarray,
           multipliers: np.ndarray | Callable[[], np.ndarray]) -> np.ndarray:
    """One weigher's contribution per host: raw weights clamped to the weigher's bounds,
    normalised, times each host's multiplier. When every host normalises to 0 (e.g. a
    weigher with nothing to weigh in this request) the multipliers are not needed, so
    they may be given as a function computing them."""
    raw = np.asarray(raw, dtype=np.float64)
    if weigher.minval is not None:
        raw = np.maximum(raw, weigher.minval)
    if weigher.maxval is not None:
        raw = np.minimum(raw, weigher.maxval)
    normalized = normalize(raw, weigher.minval, weigher.maxval)
    if not normalized.any():
        return normalized
    return (multipliers() if callable(multipliers) else multipliers) * normalized


def weigh_hosts(weighers: list[BaseHostWeigher], hosts: list[HostState],
                spec: RequestSpec) -> list[WeighedHost]:
    """The weighted sum per host, best first (stable for ties), one host at a time: the
    readable definition the scheduler's array engine must match."""
    weighed = [WeighedHost(h) for h in hosts]
    if len(weighed) <= 1:
        return weighed
    for weigher in weighers:
        raw = np.array([weigher.weigh(h, spec) for h in hosts], dtype=np.float64)
        mult = np.array([weigher.weight_multiplier(h) for h in hosts], dtype=np.float64)
        for item, score in zip(weighed, scores(weigher, raw, mult).tolist(), strict=True):
            item.weight += score
            item.by_weigher[weigher.name] = score
    return sorted(weighed, key=lambda w: w.weight, reverse=True)


def all_weighers() -> list[type[BaseHostWeigher]]:
    """Every built-in weigher class (Nova's `nova.scheduler.weights.all_weighers`)."""
    return [ep.load() for ep in plugins.namespace(NAMESPACE).values()]
