"""RamFilter, CoreFilter, DiskFilter: the pre-placement resource filters, with Nova's
allocation-ratio semantics (limit = total x ratio; what is used may not exceed it).

Each records its limit in host_state.limits, as Nova's did, for the compute claim. The
array forms take an optional per-row `ratio` for the Aggregate* variants."""

from novalite.scheduler.filters import BaseHostFilter


class RamFilter(BaseHostFilter):
    def host_passes(self, host_state, spec) -> bool:
        total = host_state.total_usable_ram_mb
        limit = total * host_state.ram_allocation_ratio
        used = total - host_state.free_ram_mb
        host_state.limits["memory_mb"] = limit
        return limit - used >= spec.flavor.memory_mb

    def filter_array(self, table, rows, spec, ratio=None):
        total = table.column("total_usable_ram_mb")[rows]
        ratio = table.column("ram_allocation_ratio")[rows] if ratio is None else ratio
        used = total - table.column("free_ram_mb")[rows]
        return total * ratio - used >= spec.flavor.memory_mb


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

    def filter_array(self, table, rows, spec, ratio=None):
        total = table.column("vcpus_total")[rows]
        ratio = table.column("cpu_allocation_ratio")[rows] if ratio is None else ratio
        vcpus = spec.flavor.vcpus
        fits = (vcpus <= total) & (total * ratio - table.column("vcpus_used")[rows] >= vcpus)
        return (total == 0) | fits


def _disk_wanted_mb(flavor) -> int:
    return (flavor.root_gb + flavor.ephemeral_gb) * 1024 + flavor.swap


class DiskFilter(BaseHostFilter):
    def host_passes(self, host_state, spec) -> bool:
        total_mb = host_state.total_usable_disk_gb * 1024
        limit_mb = total_mb * host_state.disk_allocation_ratio
        used_mb = total_mb - host_state.free_disk_mb
        host_state.limits["disk_gb"] = limit_mb / 1024
        return limit_mb - used_mb >= _disk_wanted_mb(spec.flavor)

    def filter_array(self, table, rows, spec, ratio=None):
        total_mb = table.column("total_usable_disk_gb")[rows] * 1024
        ratio = table.column("disk_allocation_ratio")[rows] if ratio is None else ratio
        used_mb = total_mb - table.column("free_disk_mb")[rows]
        return total_mb * ratio - used_mb >= _disk_wanted_mb(spec.flavor)
