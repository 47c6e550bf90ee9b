"""AllHostsFilter: every host passes (a placeholder for an empty filter list)."""

from novalite.scheduler.filters import BaseHostFilter


class AllHostsFilter(BaseHostFilter):
    run_filter_once_per_request = True

    def host_passes(self, host_state, spec) -> bool:
        return True
