"""NumInstancesFilter and IoOpsFilter: cap instances and busy (building, migrating, ...)
instances per host."""

import numpy as np

from novalite.conf import CONF
from novalite.objects.request_spec import RequestSpec
from novalite.scheduler.filters import BaseHostFilter
from novalite.scheduler.host_state import HostState
from novalite.scheduler.host_table import HostTable


class NumInstancesFilter(BaseHostFilter):
    def host_passes(self, host_state: HostState, spec: RequestSpec) -> bool:
        return host_state.num_instances < CONF.filter_scheduler.max_instances_per_host

    def filter_array(self, table: HostTable, rows: np.ndarray,
                     spec: RequestSpec) -> np.ndarray:
        return table.column("num_instances")[rows] < CONF.filter_scheduler.max_instances_per_host


class IoOpsFilter(BaseHostFilter):
    def host_passes(self, host_state: HostState, spec: RequestSpec) -> bool:
        return host_state.num_io_ops < CONF.filter_scheduler.max_io_ops_per_host

    def filter_array(self, table: HostTable, rows: np.ndarray,
                     spec: RequestSpec) -> np.ndarray:
        return table.column("num_io_ops")[rows] < CONF.filter_scheduler.max_io_ops_per_host
