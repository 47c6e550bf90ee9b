"""BuildFailureWeigher: avoid hosts whose recent builds failed. A host weighs its
`failed_builds` (builds failed in a row, reset by a success, as its compute reports them)
times the negated build_failure_weight_multiplier (default 1e6, so one failure outweighs
the resource weighers)."""

from __future__ import annotations

import numpy as np

from novalite.objects.request_spec import RequestSpec
from novalite.scheduler.host_state import HostState
from novalite.scheduler.host_table import HostTable
from novalite.scheduler.weighers import BaseHostWeigher


class BuildFailureWeigher(BaseHostWeigher):
    multiplier_option = "build_failure_weight_multiplier"

    def weight_multiplier(self, host_state: HostState) -> float:
        return -1 * super().weight_multiplier(host_state)

    def multipliers(self, table: HostTable, rows: np.ndarray) -> np.ndarray:
        return -1 * super().multipliers(table, rows)

    def weigh(self, host_state: HostState, spec: RequestSpec) -> float:
        return host_state.failed_builds

    def weigh_array(self, table: HostTable, rows: np.ndarray,
                    spec: RequestSpec) -> np.ndarray | float:
        failed = table.column("failed_builds")
        if not failed.any():
            return 0.0  # no recent failures anywhere: every host weighs 0
        return failed[rows]
