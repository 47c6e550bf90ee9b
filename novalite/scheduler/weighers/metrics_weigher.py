"""MetricsWeigher: a host weighs the sum of metric value x ratio over [metrics]
weight_setting ('name=ratio, ...'), with [metrics] weight_multiplier (aggregate key
metrics_weight_multiplier). A host lacking a metric fails the request when [metrics]
required (ComputeHostMetricNotFound; MetricsFilter keeps such hosts out), else weighs
weight_of_unavailable, unless that metric's ratio times the multiplier is 0."""

from __future__ import annotations

import numpy as np

from novalite import exception
from novalite.conf import CONF
from novalite.objects.request_spec import RequestSpec
from novalite.scheduler.host_state import HostState
from novalite.scheduler.host_table import HostTable
from novalite.scheduler.utils import parse_options
from novalite.scheduler.weighers import BaseHostWeigher


def weight_setting() -> tuple[tuple[str, float], ...]:
    return parse_options(CONF.metrics.weight_setting, "=", float, "metrics.weight_setting")


class MetricsWeigher(BaseHostWeigher):
    multiplier_group = "metrics"
    multiplier_option = "weight_multiplier"
    multiplier_key = "metrics_weight_multiplier"

    def weigh(self, host_state: HostState, spec: RequestSpec) -> float:
        value, metrics = 0.0, host_state.metrics or {}
        for name, ratio in weight_setting():
            if name in metrics:
                value += metrics[name] * ratio
            elif CONF.metrics.required:
                raise exception.ComputeHostMetricNotFound(
                    host=host_state.host, node=host_state.nodename, name=name)
            elif ratio * self.weight_multiplier(host_state) != 0:
                return CONF.metrics.weight_of_unavailable
        return value

    def weigh_array(self, table: HostTable, rows: np.ndarray,
                    spec: RequestSpec) -> np.ndarray | float | None:
        if not weight_setting():
            return 0.0  # nothing to weigh: every host weighs 0
        return None
