"""AllHostsFilter: every host passes (a placeholder for an empty filter list)."""

import numpy as np

from novalite.scheduler.filters import BaseHostFilter


class AllHostsFilter(BaseHostFilter):
    run_filter_once_per_request = True

    def host_passes(self, host_state, spec) -> bool:
        return True

    def filter_array(self, table, rows, spec):
        return np.ones(len(rows), dtype=bool)
