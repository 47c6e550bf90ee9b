"""RamFilter, CoreFilter, DiskFilter: the pre-placement resource filters, with Nova's
allocation-ratio semantics (limit = total x ratio; what is used may not exceed it).

Each records its limit in host_state.limits, as Nova's did, for the compute claim."""

from novalite.scheduler.filters import BaseHostFilter


class RamFilter(BaseHostFilter):
    def host_passes(self, host_state, spec) -> bool:
        total = host_state.total_usable_ram_mb
        limit = total * host_state.ram_allocation_ratio
        used = total - host_state.free_ram_mb
        host_state.limits["memory_mb"] = limit
        return limit - used >= spec.flavor.memory_mb


class CoreFilter(BaseHostFilter):
    def host_passes(self, host_state, spec) -> bool:
        total = host_state.vcpus_total
        if not total:
            return True  # the hypervisor does not report vCPUs: nothing to check
        vcpus = spec.flavor.vcpus
        if vcpus > total:
            return False  # one guest may not have more vCPUs than the host has CPUs
        limit = total * host_state.cpu_allocation_ratio
        host_state.limits["vcpu"] = limit
        return limit - host_state.vcpus_used >= vcpus


class DiskFilter(BaseHostFilter):
    def host_passes(self, host_state, spec) -> bool:
        flavor = spec.flavor
        wanted_mb = (flavor.root_gb + flavor.ephemeral_gb) * 1024 + flavor.swap
        total_mb = host_state.total_usable_disk_gb * 1024
        limit_mb = total_mb * host_state.disk_allocation_ratio
        used_mb = total_mb - host_state.free_disk_mb
        host_state.limits["disk_gb"] = limit_mb / 1024
        return limit_mb - used_mb >= wanted_mb
