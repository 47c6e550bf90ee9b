"""BuildFailureWeigher: avoid hosts whose recent builds failed. A host weighs its
`failed_builds` (builds failed in a row, reset by a success, as its compute reports them)
times the negated build_failure_weight_multiplier (default 1e6, so one failure outweighs
the resource weighers)."""

from __future__ import annotations

from novalite.scheduler.weighers import BaseHostWeigher


class BuildFailureWeigher(BaseHostWeigher):
    multiplier_option = "build_failure_weight_multiplier"

    def weight_multiplier(self, host_state) -> float:
        return -1 * super().weight_multiplier(host_state)

    def multipliers(self, table, rows):
        return -1 * super().multipliers(table, rows)

    def weigh(self, host_state, spec) -> float:
        return host_state.failed_builds

    def weigh_array(self, table, rows, spec):
        failed = table.column("failed_builds")
        if not failed.any():
            return 0.0  # no recent failures anywhere: every host weighs 0
        return failed[rows]
