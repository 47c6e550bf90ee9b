"""A hypervisor node's resources as its compute service reports them."""

from __future__ import annotations

import dataclasses
import datetime
from typing import Any

from novalite.objects import base


@base.register
class ComputeNode(base.NovaliteObject):
    VERSION = "1.1"  # 1.1: metrics, numa_topology, pci_stats

    uuid: str
    host: str
    hypervisor_hostname: str
    hypervisor_type: str
    hypervisor_version: int
    vcpus: int
    memory_mb: int
    local_gb: int
    vcpus_used: int = 0
    memory_mb_used: int = 0
    local_gb_used: int = 0
    running_vms: int = 0
    current_workload: int = 0
    cpu_info: str = "{}"
    host_ip: str | None = None
    supported_instances: list[Any] = dataclasses.field(default_factory=list)
    stats: dict[str, Any] = dataclasses.field(default_factory=dict)
    cpu_allocation_ratio: float = 1.0
    ram_allocation_ratio: float = 1.0
    disk_allocation_ratio: float = 1.0
    reserved_host_cpus: int = 0
    reserved_host_memory_mb: int = 0
    reserved_host_disk_mb: int = 0
    disk_available_least: int | None = None
    # [{"name", "value", "source"}] as Nova's MonitorMetricList.
    metrics: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    # {"cells": [{"id", "cpuset", "pcpuset", "memory", "cpu_usage", "memory_usage",
    #  "pinned_cpus", "siblings", "mempages", "socket"}]} (novalite.hardware.numa), or None.
    numa_topology: dict[str, Any] | None = None
    # PCI device pools: [{"vendor_id", "product_id", "numa_node", "dev_type", "count",
    #  <tags>}] (novalite.hardware.pci).
    pci_stats: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    updated_at: datetime.datetime | None = None
    id: int | None = None
