"""CrossCellWeigher: during a move that may cross cells (the request spec's
requested_destination names the instance's current cell and allow_cross_cell_move),
hosts in that cell weigh 1 and the others -1; otherwise every host weighs 0. Positive
cross_cell_move_weight_multiplier values keep moves within the cell."""

from __future__ import annotations

import numpy as np

from novalite.objects.request_spec import RequestSpec
from novalite.scheduler.host_state import HostState
from novalite.scheduler.host_table import HostTable
from novalite.scheduler.weighers import BaseHostWeigher


def _preferred_cell(spec: RequestSpec) -> str | None:
    destination = spec.requested_destination
    if destination is not None and destination.cell and destination.allow_cross_cell_move:
        return destination.cell
    return None


class CrossCellWeigher(BaseHostWeigher):
    multiplier_option = "cross_cell_move_weight_multiplier"

    def weigh(self, host_state: HostState, spec: RequestSpec) -> float:
        cell = _preferred_cell(spec)
        if cell is None:
            return 0
        return 1 if host_state.cell_uuid == cell else -1

    def weigh_array(self, table: HostTable, rows: np.ndarray,
                    spec: RequestSpec) -> np.ndarray | float | None:
        if _preferred_cell(spec) is None:
            return 0.0  # not a cross-cell move: every host weighs 0
        return None
