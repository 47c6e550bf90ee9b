"""Weighers on how busy, how full and how new a host is, and soft server-group policies."""

import numpy as np

from novalite.scheduler.weighers import BaseHostWeigher


class IoOpsWeigher(BaseHostWeigher):
    """Busy hosts (many builds/migrations) weigh more; the default -1.0 avoids them."""

    minval = 0

    multiplier_option = "io_ops_weight_multiplier"

    def weigh(self, host_state, spec) -> float:
        return host_state.num_io_ops

    def weigh_array(self, table, rows, spec):
        return table.column("num_io_ops")[rows]


class NumInstancesWeigher(BaseHostWeigher):
    """Off by default (0.0); negative spreads by instance count, positive packs."""

    multiplier_option = "num_instances_weight_multiplier"

    def weigh(self, host_state, spec) -> float:
        return host_state.num_instances

    def weigh_array(self, table, rows, spec):
        return table.column("num_instances")[rows]


class HypervisorVersionWeigher(BaseHostWeigher):
    """Prefer newer hypervisors (positive multiplier) or older ones (negative)."""

    multiplier_option = "hypervisor_version_weight_multiplier"

    def weigh(self, host_state, spec) -> float:
        return host_state.hypervisor_version or 0

    def weigh_array(self, table, rows, spec):
        return table.column("hypervisor_version")[rows]


class _SoftGroupWeigher(BaseHostWeigher):
    policy = ""
    sign = 1

    def needs_instances(self, spec) -> bool:
        return bool(spec.instance_group) and spec.instance_group.get("policy") == self.policy

    def weigh(self, host_state, spec) -> float:
        if not self.needs_instances(spec):
            return 0
        members = set(spec.instance_group.get("members") or [])
        return self.sign * len(members & host_state.instances)

    def weigh_array(self, table, rows, spec):
        if not self.needs_instances(spec):
            return np.zeros(len(rows))
        return self.sign * table.rows_holding(spec.instance_group.get("members") or [])[rows]


class ServerGroupSoftAffinityWeigher(_SoftGroupWeigher):
    """soft-affinity: hosts with more of the group's members first."""

    policy = "soft-affinity"

    multiplier_option = "soft_affinity_weight_multiplier"


class ServerGroupSoftAntiAffinityWeigher(_SoftGroupWeigher):
    """soft-anti-affinity: hosts with fewer of the group's members first."""

    policy = "soft-anti-affinity"
    sign = -1

    multiplier_option = "soft_anti_affinity_weight_multiplier"
