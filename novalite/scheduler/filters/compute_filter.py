"""ComputeFilter: only hosts whose compute service is up and enabled."""

from novalite.scheduler.filters import BaseHostFilter


class ComputeFilter(BaseHostFilter):
    run_filter_once_per_request = True

    def host_passes(self, host_state, spec) -> bool:
        return host_state.service_up and not host_state.service_disabled

    def filter_array(self, table, rows, spec):
        return table.column("service_up")[rows] & ~table.column("service_disabled")[rows]
