"""ComputeFilter: only hosts whose compute service is up and enabled."""

import numpy as np

from novalite.objects.request_spec import RequestSpec
from novalite.scheduler.filters import BaseHostFilter
from novalite.scheduler.host_state import HostState
from novalite.scheduler.host_table import HostTable


class ComputeFilter(BaseHostFilter):
    run_filter_once_per_request = True

    def host_passes(self, host_state: HostState, spec: RequestSpec) -> bool:
        return host_state.service_up and not host_state.service_disabled

    def explain(self, host_state: HostState, spec: RequestSpec) -> str:
        return "service disabled" if host_state.service_disabled else "service down"

    def filter_array(self, table: HostTable, rows: np.ndarray, spec: RequestSpec) -> np.ndarray:
        return table.column("service_up")[rows] & ~table.column("service_disabled")[rows]
