"""AllHostsFilter: every host passes (a placeholder for an empty filter list)."""

import numpy as np

from novalite.objects.request_spec import RequestSpec
from novalite.scheduler.filters import BaseHostFilter
from novalite.scheduler.host_state import HostState
from novalite.scheduler.host_table import HostTable


class AllHostsFilter(BaseHostFilter):
    run_filter_once_per_request = True

    def host_passes(self, host_state: HostState, spec: RequestSpec) -> bool:
        return True

    def filter_array(self, table: HostTable, rows: np.ndarray,
                     spec: RequestSpec) -> np.ndarray:
        return np.ones(len(rows), dtype=bool)
