"""HostState: the scheduler's per-node view, with Nova's attribute names, because filters
(ours and operators' own) read them by those names. Bound to a HostTable, it mirrors its
numeric fields into the table's columns as they are set (see host_table)."""

from __future__ import annotations

import dataclasses
import json
import math
from typing import Any

from novalite import exception
from novalite.hardware import numa_fit, pci
from novalite.hardware.numa import NUMATopology
from novalite.objects.aggregate import Aggregate
from novalite.objects.compute_node import ComputeNode
from novalite.objects.request_spec import RequestSpec
from novalite.scheduler.host_table import WATCHED, HostTable

# The request whose NUMA/PCI usage a host last took, and the (topology, PCI pools) each
# take replaced, for release_request.
_Consumed = tuple[RequestSpec, list[tuple[NUMATopology | None, tuple[pci.PciPool, ...]]]]


@dataclasses.dataclass
class HostState:
    host: str
    nodename: str
    uuid: str
    total_usable_ram_mb: int = 0
    free_ram_mb: int = 0
    total_usable_disk_gb: int = 0
    free_disk_mb: int = 0
    disk_mb_used: int = 0
    vcpus_total: int = 0
    vcpus_used: float = 0
    cpu_allocation_ratio: float = 1.0
    ram_allocation_ratio: float = 1.0
    disk_allocation_ratio: float = 1.0
    num_instances: int = 0
    num_io_ops: int = 0
    hypervisor_type: str = ""
    hypervisor_version: int = 0
    hypervisor_hostname: str = ""
    cpu_info: dict = dataclasses.field(default_factory=dict)
    supported_instances: list = dataclasses.field(default_factory=list)
    stats: dict = dataclasses.field(default_factory=dict)
    host_ip: str | None = None
    service_up: bool = True
    service_disabled: bool = False
    aggregates: list[Aggregate] = dataclasses.field(default_factory=list)
    instances: set[str] = dataclasses.field(default_factory=set)
    limits: dict[str, Any] = dataclasses.field(default_factory=dict)
    # What only some nodes have. init=False keeps the class's default until a node sets
    # it, so most states stay within CPython's key-sharing instance dicts (<= 30 keys;
    # beyond, every state's dict costs ~1.3 kB more).
    # Metric name -> value, as the compute reports them (MetricsFilter / MetricsWeigher).
    metrics: dict[str, float] | None = dataclasses.field(default=None, init=False)
    numa_topology: NUMATopology | None = dataclasses.field(default=None, init=False)
    # The node's PCI device pools.
    pci_stats: tuple[pci.PciPool, ...] = dataclasses.field(default=(), init=False)
    cell_uuid: str | None = dataclasses.field(default=None, init=False)  # one cell here

    @property
    def failed_builds(self) -> int:
        """Builds that failed in a row on this node (its `failed_builds` stat)."""
        return int(self.stats.get("failed_builds", 0))

    def bind(self, table: HostTable | None, row: int) -> None:
        """Mirror this state into `row` of `table` (None: stop mirroring)."""
        object.__setattr__(self, "_table", table)
        object.__setattr__(self, "_row", row)

    def __setattr__(self, name: str, value: Any) -> None:
        object.__setattr__(self, name, value)
        table = self.__dict__.get("_table")
        if table is not None and name in WATCHED:
            table.write(self.__dict__["_row"], name, value)

    @classmethod
    def unbound(cls, **values: Any) -> HostState:
        """As cls(**values), without passing each field through __setattr__, which a
        state not yet in a table does not need (most of the cost of a state: 10,000 at a
        scheduler's start). Its dict is not key-shared: ~0.5 kB more per state."""
        state = object.__new__(cls)
        state.__dict__.update(_init_defaults(), **values)
        return state

    @classmethod
    def from_compute_node(cls, node: ComputeNode) -> HostState:
        """As Nova counts: free = total - (reserved + used by instances)."""
        reserved_disk_gb = math.ceil(node.reserved_host_disk_mb / 1024)
        state = cls.unbound(
            host=node.host, nodename=node.hypervisor_hostname, uuid=node.uuid,
            total_usable_ram_mb=node.memory_mb,
            free_ram_mb=node.memory_mb - node.reserved_host_memory_mb - node.memory_mb_used,
            total_usable_disk_gb=node.local_gb,
            free_disk_mb=(node.local_gb - reserved_disk_gb - node.local_gb_used) * 1024,
            disk_mb_used=(node.local_gb_used + reserved_disk_gb) * 1024,
            vcpus_total=node.vcpus - node.reserved_host_cpus, vcpus_used=node.vcpus_used,
            cpu_allocation_ratio=node.cpu_allocation_ratio,
            ram_allocation_ratio=node.ram_allocation_ratio,
            disk_allocation_ratio=node.disk_allocation_ratio,
            num_instances=node.running_vms, num_io_ops=node.current_workload,
            hypervisor_type=node.hypervisor_type, hypervisor_version=node.hypervisor_version,
            hypervisor_hostname=node.hypervisor_hostname,
            cpu_info=json.loads(node.cpu_info) if node.cpu_info not in (None, "", "{}") else {},
            supported_instances=[tuple(i) for i in node.supported_instances],
            stats=dict(node.stats), host_ip=node.host_ip,
        )
        if node.metrics:
            state.metrics = {m["name"]: m["value"] for m in node.metrics}
        if node.numa_topology:
            state.numa_topology = NUMATopology.from_dict(node.numa_topology)
        if node.pci_stats:
            state.pci_stats = pci.pools_from_dicts(node.pci_stats)
        return state

    def consume_from_request(self, spec: RequestSpec) -> None:
        """Count a placement at once, so the next choice of this request sees it."""
        flavor = spec.flavor
        disk_mb = flavor.local_disk_mb(spec.is_bfv)
        self.free_ram_mb -= flavor.memory_mb
        self.free_disk_mb -= disk_mb
        self.disk_mb_used += disk_mb
        self.vcpus_used += flavor.vcpus
        self.num_instances += 1
        self._consume_numa_and_pci(spec)

    def _consume_numa_and_pci(self, spec: RequestSpec) -> None:
        """As Nova: fit the guest's NUMA topology again (under the limits the
        NUMATopologyFilter recorded) and count it, then take the PCI devices, on the
        fitted NUMA cells."""
        try:
            wanted = numa_fit.numa_constraints(spec.flavor, spec.image)
            devices = pci.requests_from_flavor(spec.flavor, spec.image)
        except exception.Invalid:
            return  # the filters refused it; without them there is nothing to count
        if wanted is None and not devices:
            return
        topology, pools, _ = numa_fit.take(self.numa_topology, self.pci_stats, wanted,
                                           devices, self.limits.get("numa_topology"))
        if topology is self.numa_topology and pools == self.pci_stats:
            return
        # What this replaced, for release_request: kept for the latest request only
        # (releases happen within the request that consumed).
        log: _Consumed | None = self.__dict__.get("_consumed")
        if log is None or log[0] is not spec:
            log = self.__dict__["_consumed"] = (spec, [])
        log[1].append((self.numa_topology, self.pci_stats))
        self.numa_topology, self.pci_stats = topology, pools

    def release_request(self, spec: RequestSpec) -> None:
        """Undo consume_from_request (a multi-create that could not reach min_count)."""
        flavor = spec.flavor
        disk_mb = flavor.local_disk_mb(spec.is_bfv)
        self.free_ram_mb += flavor.memory_mb
        self.free_disk_mb += disk_mb
        self.disk_mb_used -= disk_mb
        self.vcpus_used -= flavor.vcpus
        self.num_instances -= 1
        log = self.__dict__.get("_consumed")
        if log and log[0] is spec and log[1]:
            self.numa_topology, self.pci_stats = log[1].pop()


_FIELDS = [f for f in dataclasses.fields(HostState) if f.init]
_DEFAULTS = {f.name: f.default for f in _FIELDS if f.default is not dataclasses.MISSING}
_FACTORIES = [(f.name, f.default_factory) for f in _FIELDS
              if f.default_factory is not dataclasses.MISSING]


def _init_defaults() -> dict[str, Any]:
    """The defaults __init__ would give, with fresh values from the default factories."""
    defaults = _DEFAULTS.copy()
    for name, factory in _FACTORIES:
        defaults[name] = factory()
    return defaults
