"""RetryFilter (Nova's legacy one): skip the nodes a reschedule of this build already
tried, as the conductor records them in the request spec's `retry`.

The conductor reschedules onto the alternates the first answer gave, without asking
again (as Nova has since Queens), so this matters only to a scheduler asked again."""

from __future__ import annotations

import numpy as np

from novalite.scheduler.filters import BaseHostFilter


def _tried(spec) -> set[tuple[str, str]]:
    return {(host, node) for host, node in (spec.retry or {}).get("hosts") or ()}


class RetryFilter(BaseHostFilter):
    # Where the instance lands on a rebuild is not in question.
    RUN_ON_REBUILD = False

    def host_passes(self, host_state, spec) -> bool:
        return (host_state.host, host_state.nodename) not in _tried(spec)

    def filter_array(self, table, rows, spec):
        tried = _tried(spec)
        if not tried:
            return np.ones(len(rows), dtype=bool)
        hit = np.zeros(len(table), dtype=bool)
        for row in np.flatnonzero(table.rows_named({host for host, _ in tried})).tolist():
            state = table.states[row]
            hit[row] = (state.host, state.nodename) in tried
        return ~hit[rows]
