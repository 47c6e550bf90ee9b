"""How much a flavor needs and how much a node can give, as placement would count it:
capacity = (total - reserved) * allocation_ratio, per resource."""

from __future__ import annotations

import dataclasses
import math

from novalite.conf import CONF
from novalite.objects.compute_node import ComputeNode
from novalite.objects.flavor import Flavor


@dataclasses.dataclass(frozen=True)
class Resources:
    vcpus: float = 0
    memory_mb: float = 0
    disk_gb: float = 0

    def __add__(self, other: Resources) -> Resources:
        return Resources(self.vcpus + other.vcpus, self.memory_mb + other.memory_mb,
                         self.disk_gb + other.disk_gb)

    def __sub__(self, other: Resources) -> Resources:
        return Resources(self.vcpus - other.vcpus, self.memory_mb - other.memory_mb,
                         self.disk_gb - other.disk_gb)

    def covers(self, wanted: Resources) -> bool:
        return (self.vcpus >= wanted.vcpus and self.memory_mb >= wanted.memory_mb
                and self.disk_gb >= wanted.disk_gb)

    def shortfall(self, wanted: Resources) -> str:
        """Which resources fall short, for messages."""
        return ", ".join(f"{name} (free {getattr(self, name):g}, need {getattr(wanted, name):g})"
                         for name in ("vcpus", "memory_mb", "disk_gb")
                         if getattr(self, name) < getattr(wanted, name))


def requested(flavor: Flavor, volume_backed: bool = False) -> Resources:
    return Resources(flavor.vcpus, flavor.memory_mb, flavor.local_disk_gb(volume_backed))


def allocation_ratios() -> tuple[float, float, float]:
    """The configured ratios, falling back to the initial_* ones as Nova does."""
    return (CONF.cpu_allocation_ratio or CONF.initial_cpu_allocation_ratio,
            CONF.ram_allocation_ratio or CONF.initial_ram_allocation_ratio,
            CONF.disk_allocation_ratio or CONF.initial_disk_allocation_ratio)


def capacity(node: ComputeNode) -> Resources:
    return Resources(
        (node.vcpus - node.reserved_host_cpus) * node.cpu_allocation_ratio,
        (node.memory_mb - node.reserved_host_memory_mb) * node.ram_allocation_ratio,
        (node.local_gb - math.ceil(node.reserved_host_disk_mb / 1024))
        * node.disk_allocation_ratio,
    )


def used(node: ComputeNode) -> Resources:
    return Resources(node.vcpus_used, node.memory_mb_used, node.local_gb_used)


def free(node: ComputeNode) -> Resources:
    return capacity(node) - used(node)
