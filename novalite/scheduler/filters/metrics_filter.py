"""MetricsFilter: only hosts reporting every metric [metrics] weight_setting names, so the
MetricsWeigher never meets a host without them."""

from __future__ import annotations

import numpy as np

from novalite.conf import CONF
from novalite.objects.request_spec import RequestSpec
from novalite.scheduler.filters import BaseHostFilter
from novalite.scheduler.host_state import HostState
from novalite.scheduler.host_table import HostTable
from novalite.scheduler.utils import parse_options


def metric_names() -> set[str]:
    return {name for name, _ in parse_options(CONF.metrics.weight_setting, "=", float,
                                              "metrics.weight_setting")}


class MetricsFilter(BaseHostFilter):
    def host_passes(self, host_state: HostState, spec: RequestSpec) -> bool:
        return metric_names() <= (host_state.metrics or {}).keys()

    def filter_array(self, table: HostTable, rows: np.ndarray,
                     spec: RequestSpec) -> np.ndarray | None:
        if not metric_names():
            return np.ones(len(rows), dtype=bool)
        return None
