"""RetryFilter (Nova's legacy one): skip the nodes a reschedule of this build already
tried, as the conductor records them in the request spec's `retry`.

The conductor reschedules onto the alternates the first answer gave, without asking
again (as Nova has since Queens), so this matters only to a scheduler asked again."""

from __future__ import annotations

import numpy as np

from novalite.objects.request_spec import RequestSpec
from novalite.scheduler.filters import BaseHostFilter
from novalite.scheduler.host_state import HostState
from novalite.scheduler.host_table import HostTable


def _tried(spec: RequestSpec) -> set[tuple[str, str]]:
    return spec.retry.tried() if spec.retry is not None else set()


class RetryFilter(BaseHostFilter):
    def host_passes(self, host_state: HostState, spec: RequestSpec) -> bool:
        return (host_state.host, host_state.nodename) not in _tried(spec)

    def filter_array(self, table: HostTable, rows: np.ndarray,
                     spec: RequestSpec) -> np.ndarray:
        tried = _tried(spec)
        if not tried:
            return np.ones(len(rows), dtype=bool)
        hit = np.zeros(len(table), dtype=bool)
        for row in np.flatnonzero(table.rows_named({host for host, _ in tried})).tolist():
            state = table.states[row]
            hit[row] = (state.host, state.nodename) in tried
        return ~hit[rows]
