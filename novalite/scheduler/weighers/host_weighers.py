"""Weighers on how busy, how full and how new a host is, and soft server-group policies."""

from novalite.conf import CONF
from novalite.scheduler.weighers import BaseHostWeigher


class IoOpsWeigher(BaseHostWeigher):
    """Busy hosts (many builds/migrations) weigh more; the default -1.0 avoids them."""

    minval = 0

    def weight_multiplier(self, host_state) -> float:
        return CONF.filter_scheduler.io_ops_weight_multiplier

    def weigh(self, host_state, spec) -> float:
        return host_state.num_io_ops


class NumInstancesWeigher(BaseHostWeigher):
    """Off by default (0.0); negative spreads by instance count, positive packs."""

    def weight_multiplier(self, host_state) -> float:
        return CONF.filter_scheduler.num_instances_weight_multiplier

    def weigh(self, host_state, spec) -> float:
        return host_state.num_instances


class HypervisorVersionWeigher(BaseHostWeigher):
    """Prefer newer hypervisors (positive multiplier) or older ones (negative)."""

    def weight_multiplier(self, host_state) -> float:
        return CONF.filter_scheduler.hypervisor_version_weight_multiplier

    def weigh(self, host_state, spec) -> float:
        return host_state.hypervisor_version or 0


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


class ServerGroupSoftAffinityWeigher(_SoftGroupWeigher):
    """soft-affinity: hosts with more of the group's members first."""

    policy = "soft-affinity"

    def weight_multiplier(self, host_state) -> float:
        return CONF.filter_scheduler.soft_affinity_weight_multiplier


class ServerGroupSoftAntiAffinityWeigher(_SoftGroupWeigher):
    """soft-anti-affinity: hosts with fewer of the group's members first."""

    policy = "soft-anti-affinity"
    sign = -1

    def weight_multiplier(self, host_state) -> float:
        return CONF.filter_scheduler.soft_anti_affinity_weight_multiplier
