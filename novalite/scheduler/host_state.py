"""HostState: the scheduler's per-node view, with Nova's attribute names, because filters
(ours and operators' own) read them by those names. Bound to a HostTable, it mirrors its
numeric fields into the table's columns as they are set (see host_table)."""

from __future__ import annotations

import dataclasses
import json
import math
from typing import Any

from novalite.objects.compute_node import ComputeNode
from novalite.objects.request_spec import RequestSpec
from novalite.scheduler.host_table import WATCHED, HostTable


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
    aggregates: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    instances: set[str] = dataclasses.field(default_factory=set)
    limits: dict[str, float] = dataclasses.field(default_factory=dict)

    def bind(self, table: HostTable | None, row: int) -> None:
        """Mirror this state into `row` of `table` (None: stop mirroring)."""
        object.__setattr__(self, "_table", table)
        object.__setattr__(self, "_row", row)

    def __setattr__(self, name: str, value: Any) -> None:
        object.__setattr__(self, name, value)
        table = self.__dict__.get("_table")
        if table is not None and name in WATCHED:
            table.write(self._row, name, value)

    @classmethod
    def from_compute_node(cls, node: ComputeNode) -> HostState:
        """As Nova counts: free = total - (reserved + used by instances)."""
        reserved_disk_gb = math.ceil(node.reserved_host_disk_mb / 1024)
        return cls(
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
            cpu_info=json.loads(node.cpu_info or "{}"),
            supported_instances=[tuple(i) for i in node.supported_instances],
            stats=dict(node.stats), host_ip=node.host_ip,
        )

    def consume_from_request(self, spec: RequestSpec) -> None:
        """Count a placement at once, so the next choice of this request sees it."""
        flavor = spec.flavor
        disk_mb = (flavor.root_gb + flavor.ephemeral_gb) * 1024 + flavor.swap
        self.free_ram_mb -= flavor.memory_mb
        self.free_disk_mb -= disk_mb
        self.disk_mb_used += disk_mb
        self.vcpus_used += flavor.vcpus
        self.num_instances += 1

    def release_request(self, spec: RequestSpec) -> None:
        """Undo consume_from_request (a multi-create that could not reach min_count)."""
        flavor = spec.flavor
        disk_mb = (flavor.root_gb + flavor.ephemeral_gb) * 1024 + flavor.swap
        self.free_ram_mb += flavor.memory_mb
        self.free_disk_mb += disk_mb
        self.disk_mb_used -= disk_mb
        self.vcpus_used -= flavor.vcpus
        self.num_instances -= 1
