"""RamFilter, CoreFilter, DiskFilter: the pre-placement resource filters, with Nova's
allocation-ratio semantics (limit = total x ratio; what is used may not exceed it).

Each records its limit in host_state.limits, as Nova's did, for the compute claim. The
array forms take an optional per-row `ratio` for the Aggregate* variants."""

import numpy as np

from novalite.objects.request_spec import RequestSpec
from novalite.scheduler.filters import BaseHostFilter
from novalite.scheduler.host_state import HostState
from novalite.scheduler.host_table import HostTable


class RatioFilter(BaseHostFilter):
    """A filter whose limit is a total times an allocation ratio; the array form takes the
    ratio per row when given (the Aggregate* variants), else the host's own."""

    def filter_array(self, table: HostTable, rows: np.ndarray, spec: RequestSpec,
                     ratio: np.ndarray | None = None) -> np.ndarray:
        raise NotImplementedError


class RamFilter(RatioFilter):
    def host_passes(self, host_state: HostState, spec: RequestSpec) -> bool:
        total = host_state.total_usable_ram_mb
        limit = total * host_state.ram_allocation_ratio
        used = total - host_state.free_ram_mb
        host_state.limits["memory_mb"] = limit
        return limit - used >= spec.flavor.memory_mb

    def explain(self, host_state: HostState, spec: RequestSpec) -> str:
        total = host_state.total_usable_ram_mb
        free = total * host_state.ram_allocation_ratio - (total - host_state.free_ram_mb)
        return f"{free:,.0f} MB free, {spec.flavor.memory_mb:,} MB wanted"

    def filter_array(self, table: HostTable, rows: np.ndarray, spec: RequestSpec,
                     ratio: np.ndarray | None = None) -> np.ndarray:
        total = table.column("total_usable_ram_mb")[rows]
        ratio = table.column("ram_allocation_ratio")[rows] if ratio is None else ratio
        used = total - table.column("free_ram_mb")[rows]
        return total * ratio - used >= spec.flavor.memory_mb


class CoreFilter(RatioFilter):
    def host_passes(self, host_state: HostState, spec: RequestSpec) -> bool:
        total = host_state.vcpus_total
        if not total:
            return True  # the hypervisor does not report vCPUs: nothing to check
        vcpus = spec.flavor.vcpus
        if vcpus > total:
            return False  # one guest may not have more vCPUs than the host has CPUs
        limit = total * host_state.cpu_allocation_ratio
        host_state.limits["vcpu"] = limit
        return limit - host_state.vcpus_used >= vcpus

    def explain(self, host_state: HostState, spec: RequestSpec) -> str:
        total, vcpus = host_state.vcpus_total, spec.flavor.vcpus
        if vcpus > total:
            return f"{total} vCPUs on the host, {vcpus} wanted"
        free = total * host_state.cpu_allocation_ratio - host_state.vcpus_used
        return f"{free:,.4g} vCPUs free, {vcpus} wanted"

    def filter_array(self, table: HostTable, rows: np.ndarray, spec: RequestSpec,
                     ratio: np.ndarray | None = None) -> np.ndarray:
        total = table.column("vcpus_total")[rows]
        ratio = table.column("cpu_allocation_ratio")[rows] if ratio is None else ratio
        vcpus = spec.flavor.vcpus
        fits = (vcpus <= total) & (total * ratio - table.column("vcpus_used")[rows] >= vcpus)
        return (total == 0) | fits


class DiskFilter(RatioFilter):
    def host_passes(self, host_state: HostState, spec: RequestSpec) -> bool:
        total_mb = host_state.total_usable_disk_gb * 1024
        limit_mb = total_mb * host_state.disk_allocation_ratio
        used_mb = total_mb - host_state.free_disk_mb
        host_state.limits["disk_gb"] = limit_mb / 1024
        return limit_mb - used_mb >= spec.flavor.local_disk_mb(spec.is_bfv)

    def explain(self, host_state: HostState, spec: RequestSpec) -> str:
        total_mb = host_state.total_usable_disk_gb * 1024
        free_mb = total_mb * host_state.disk_allocation_ratio - \
            (total_mb - host_state.free_disk_mb)
        return (f"{free_mb:,.0f} MB disk free, "
                f"{spec.flavor.local_disk_mb(spec.is_bfv):,} MB wanted")

    def filter_array(self, table: HostTable, rows: np.ndarray, spec: RequestSpec,
                     ratio: np.ndarray | None = None) -> np.ndarray:
        total_mb = table.column("total_usable_disk_gb")[rows] * 1024
        ratio = table.column("disk_allocation_ratio")[rows] if ratio is None else ratio
        used_mb = total_mb - table.column("free_disk_mb")[rows]
        return total_mb * ratio - used_mb >= spec.flavor.local_disk_mb(spec.is_bfv)
