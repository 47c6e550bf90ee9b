"""Weighers on how busy, how full and how new a host is, and soft server-group policies."""


import numpy as np

from novalite.objects.request_spec import InstanceGroup, RequestSpec
from novalite.scheduler.host_state import HostState
from novalite.scheduler.host_table import HostTable
from novalite.scheduler.weighers import BaseHostWeigher


class IoOpsWeigher(BaseHostWeigher):
    """Busy hosts (many builds/migrations) weigh more; the default -1.0 avoids them."""

    minval = 0

    multiplier_option = "io_ops_weight_multiplier"

    def weigh(self, host_state: HostState, spec: RequestSpec) -> float:
        return host_state.num_io_ops

    def weigh_array(self, table: HostTable, rows: np.ndarray,
                    spec: RequestSpec) -> np.ndarray | float:
        return table.column("num_io_ops")[rows]


class NumInstancesWeigher(BaseHostWeigher):
    """Off by default (0.0); negative spreads by instance count, positive packs."""

    multiplier_option = "num_instances_weight_multiplier"

    def weigh(self, host_state: HostState, spec: RequestSpec) -> float:
        return host_state.num_instances

    def weigh_array(self, table: HostTable, rows: np.ndarray,
                    spec: RequestSpec) -> np.ndarray | float:
        return table.column("num_instances")[rows]


class HypervisorVersionWeigher(BaseHostWeigher):
    """Prefer newer hypervisors (positive multiplier) or older ones (negative)."""

    multiplier_option = "hypervisor_version_weight_multiplier"

    def weigh(self, host_state: HostState, spec: RequestSpec) -> float:
        return host_state.hypervisor_version or 0

    def weigh_array(self, table: HostTable, rows: np.ndarray,
                    spec: RequestSpec) -> np.ndarray | float:
        return table.column("hypervisor_version")[rows]


class _SoftGroupWeigher(BaseHostWeigher):
    policy = ""
    sign = 1

    def _group(self, spec: RequestSpec) -> InstanceGroup | None:
        group = spec.instance_group
        return group if group is not None and group.policy == self.policy else None

    def needs_instances(self, spec: RequestSpec) -> bool:
        return self._group(spec) is not None

    def weigh(self, host_state: HostState, spec: RequestSpec) -> float:
        group = self._group(spec)
        if group is None:
            return 0
        return self.sign * len(set(group.members) & host_state.instances)

    def weigh_array(self, table: HostTable, rows: np.ndarray,
                    spec: RequestSpec) -> np.ndarray | float:
        group = self._group(spec)
        if group is None:
            return np.zeros(len(rows))
        return self.sign * table.rows_holding(group.members)[rows]


class ServerGroupSoftAffinityWeigher(_SoftGroupWeigher):
    """soft-affinity: hosts with more of the group's members first."""

    policy = "soft-affinity"

    multiplier_option = "soft_affinity_weight_multiplier"


class ServerGroupSoftAntiAffinityWeigher(_SoftGroupWeigher):
    """soft-anti-affinity: hosts with fewer of the group's members first."""

    policy = "soft-anti-affinity"
    sign = -1

    multiplier_option = "soft_anti_affinity_weight_multiplier"
