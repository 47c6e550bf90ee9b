"""Reading aggregate metadata for a host, as Nova's filters and weighers do."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from novalite.scheduler.host_state import HostState

LOG = logging.getLogger(__name__)


def values(host_state: HostState, key: str) -> set[str]:
    """Every value the host's aggregates give `key` (comma lists are not split)."""
    return {agg.metadata[key] for agg in host_state.aggregates if key in agg.metadata}


def min_number(host_state: HostState, key: str, default: float,
               cast: Callable[[str], float] = float) -> float:
    """The smallest number the aggregates give `key`; `default` without one or on a bad
    value (logged, as Nova does)."""
    numbers = []
    for value in values(host_state, key):
        try:
            numbers.append(cast(value))
        except ValueError:
            LOG.warning("Could not decode %s=%r of an aggregate of host %s; using %s",
                        key, value, host_state.host, default)
            return default
    return min(numbers) if numbers else default
