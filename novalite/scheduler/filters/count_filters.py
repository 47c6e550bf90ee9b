"""NumInstancesFilter and IoOpsFilter: cap instances and busy (building, migrating, ...)
instances per host."""

from novalite.conf import CONF
from novalite.scheduler.filters import BaseHostFilter


class NumInstancesFilter(BaseHostFilter):
    def host_passes(self, host_state, spec) -> bool:
        return host_state.num_instances < CONF.filter_scheduler.max_instances_per_host

    def filter_array(self, table, rows, spec):
        return table.column("num_instances")[rows] < CONF.filter_scheduler.max_instances_per_host


class IoOpsFilter(BaseHostFilter):
    def host_passes(self, host_state, spec) -> bool:
        return host_state.num_io_ops < CONF.filter_scheduler.max_io_ops_per_host

    def filter_array(self, table, rows, spec):
        return table.column("num_io_ops")[rows] < CONF.filter_scheduler.max_io_ops_per_host
