"""Host weighers: the contract, Nova's normalisation, and the built-in set.

Each weigher gives every host a raw weight; raw weights are normalised to [0, 1] across
the candidate hosts (min/max, or the weigher's own minval/maxval), multiplied by the
weigher's multiplier and summed. Higher wins. Built-ins register under the entry-point
group `novalite.scheduler.weighers`.
"""

from __future__ import annotations

import dataclasses
from importlib.metadata import entry_points

from novalite.conf import CONF
from novalite.objects.request_spec import RequestSpec
from novalite.scheduler import aggregates
from novalite.scheduler.host_state import HostState

NAMESPACE = "novalite.scheduler.weighers"


class BaseHostWeigher:
    minval: float | None = None
    maxval: float | None = None
    # The [filter_scheduler] option holding the multiplier; host aggregates may override
    # it with metadata of the same name (the smallest value wins), as in Nova.
    multiplier_option: str | None = None

    def weight_multiplier(self, host_state: HostState) -> float:
        if self.multiplier_option is None:
            return 1.0
        default = getattr(CONF.filter_scheduler, self.multiplier_option)
        return aggregates.min_number(host_state, self.multiplier_option, default)

    def weigh(self, host_state: HostState, spec: RequestSpec) -> float:
        raise NotImplementedError

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


def normalize(weights: list[float], minval: float | None = None,
              maxval: float | None = None) -> list[float]:
    """Scale to [0, 1]; equal weights all become 0, as in Nova."""
    if not weights:
        return []
    low = min(weights) if minval is None else minval
    high = max(weights) if maxval is None else maxval
    if low == high:
        return [0.0] * len(weights)
    span = high - low
    return [(w - low) / span for w in weights]


def weigh_hosts(weighers: list[BaseHostWeigher], hosts: list[HostState],
                spec: RequestSpec) -> list[WeighedHost]:
    """The weighted sum per host, best first (stable for ties)."""
    weighed = [WeighedHost(h) for h in hosts]
    if len(weighed) <= 1:
        return weighed
    for weigher in weighers:
        raw = [weigher.weigh(w.host_state, spec) for w in weighed]
        if weigher.minval is not None:
            raw = [max(weigher.minval, r) for r in raw]
        if weigher.maxval is not None:
            raw = [min(weigher.maxval, r) for r in raw]
        for item, value in zip(weighed, normalize(raw, weigher.minval, weigher.maxval),
                               strict=True):
            score = weigher.weight_multiplier(item.host_state) * value
            item.weight += score
            item.by_weigher[weigher.name] = score
    return sorted(weighed, key=lambda w: w.weight, reverse=True)


def all_weighers() -> list[type[BaseHostWeigher]]:
    """Every built-in weigher class (Nova's `nova.scheduler.weights.all_weighers`)."""
    return [ep.load() for ep in entry_points(group=NAMESPACE)]
