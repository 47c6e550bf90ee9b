"""NUMA topologies, host and instance side (Nova's NUMATopology/NUMACell and
InstanceNUMATopology/InstanceNUMACell), as frozen values.

A compute node reports its host topology as JSON in compute_nodes.numa_topology:

    {"cells": [{"id": 0, "cpuset": [0, 1], "pcpuset": [0, 1], "memory": 4096,
                "cpu_usage": 0, "memory_usage": 0, "pinned_cpus": [],
                "siblings": [[0, 1]], "socket": 0,
                "mempages": [{"size_kb": 4, "total": 1048576, "used": 0, "reserved": 0}]}]}

`cpuset` holds the CPUs for shared (floating) guest CPUs, `pcpuset` those for dedicated
(pinned) ones; memory is in MiB. Frozen values are hashable, so the scheduler can answer
once for all hosts whose topologies are equal; using resources makes a new value.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Hashable
from typing import Any, TypeVar

# Instance page size requests besides an explicit size in KiB (Nova's MEMPAGES_*).
MEMPAGES_SMALL, MEMPAGES_LARGE, MEMPAGES_ANY = -1, -2, -3


@dataclasses.dataclass(frozen=True)
class PageSize:
    size_kb: int
    total: int
    used: int = 0
    reserved: int = 0

    @property
    def free_kb(self) -> int:
        return (self.total - self.used - self.reserved) * self.size_kb

    @property
    def total_kb(self) -> int:
        return self.total * self.size_kb


@dataclasses.dataclass(frozen=True)
class NUMACell:
    id: int
    cpuset: frozenset[int]
    pcpuset: frozenset[int]
    memory: int
    cpu_usage: int = 0
    memory_usage: int = 0
    pinned_cpus: frozenset[int] = frozenset()
    siblings: tuple[frozenset[int], ...] = ()
    mempages: tuple[PageSize, ...] = ()
    socket: int | None = None

    @property
    def free_pcpus(self) -> frozenset[int]:
        return self.pcpuset - self.pinned_cpus

    @property
    def free_siblings(self) -> list[frozenset[int]]:
        free = self.free_pcpus
        return [sibling & free for sibling in self.siblings]

    @property
    def avail_pcpus(self) -> int:
        return len(self.free_pcpus)

    @property
    def avail_memory(self) -> int:
        return self.memory - self.memory_usage

    @property
    def has_threads(self) -> bool:
        return any(len(sibling) > 1 for sibling in self.siblings)

    def can_fit_pagesize(self, pagesize_kb: int, memory_kb: int,
                         use_free: bool = True) -> bool | None:
        """Whether `memory_kb` fits in pages of `pagesize_kb` (free ones, or all with
        use_free=False); None when the cell has no pages of that size."""
        for pages in self.mempages:
            if pages.size_kb == pagesize_kb:
                avail = pages.free_kb if use_free else pages.total_kb
                return memory_kb <= avail and memory_kb % pages.size_kb == 0
        return None

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> NUMACell:
        cpuset = frozenset(data.get("cpuset") or ())
        pcpuset = frozenset(data.get("pcpuset", cpuset) or ())
        # Without thread information every CPU is a core of its own.
        siblings = data.get("siblings") or [[cpu] for cpu in sorted(cpuset | pcpuset)]
        return cls(
            id=int(data["id"]), cpuset=cpuset, pcpuset=pcpuset, memory=int(data["memory"]),
            cpu_usage=int(data.get("cpu_usage") or 0),
            memory_usage=int(data.get("memory_usage") or 0),
            pinned_cpus=frozenset(data.get("pinned_cpus") or ()),
            siblings=tuple(frozenset(s) for s in siblings),
            mempages=tuple(PageSize(**p) for p in data.get("mempages") or ()),
            socket=data.get("socket"))

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "cpuset": sorted(self.cpuset), "pcpuset": sorted(self.pcpuset),
                "memory": self.memory, "cpu_usage": self.cpu_usage,
                "memory_usage": self.memory_usage, "pinned_cpus": sorted(self.pinned_cpus),
                "siblings": [sorted(s) for s in self.siblings],
                "mempages": [dataclasses.asdict(p) for p in self.mempages],
                "socket": self.socket}


@dataclasses.dataclass(frozen=True)
class NUMATopology:
    cells: tuple[NUMACell, ...]

    def __hash__(self) -> int:  # asked per host by the filters' memo: computed once
        return self._hash

    @functools.cached_property
    def _hash(self) -> int:
        return hash(self.cells)

    @property
    def has_threads(self) -> bool:
        return any(cell.has_threads for cell in self.cells)

    def __len__(self) -> int:
        return len(self.cells)

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> NUMATopology | None:
        """The topology, shared with the hosts reporting an equal one (so comparing them,
        as the filters' memo does per host, is an identity check)."""
        if not data or not data.get("cells"):
            return None
        return intern(cls(tuple(NUMACell.from_dict(c) for c in data["cells"])))

    def to_dict(self) -> dict[str, Any]:
        return {"cells": [c.to_dict() for c in self.cells]}


_INTERNED: dict[Any, Any] = {}
_INTERNED_MAX = 50_000
H = TypeVar("H", bound=Hashable)


def intern(value: H) -> H:
    """One shared object per distinct (hashable) value."""
    if len(_INTERNED) >= _INTERNED_MAX:
        _INTERNED.clear()
    shared: H = _INTERNED.setdefault(value, value)
    return shared


def evenly_split(cpus: int, memory_mb: int, nodes: int, threads_per_core: int = 1
                 ) -> NUMATopology:
    """A host of `cpus` CPUs and `memory_mb` split evenly over `nodes` cells (one socket
    per cell), with `threads_per_core` consecutive CPUs as thread siblings."""
    per_node, memory = cpus // nodes, memory_mb // nodes
    cells = []
    for node in range(nodes):
        ids = list(range(node * per_node, (node + 1) * per_node))
        siblings = [frozenset(ids[i:i + threads_per_core])
                    for i in range(0, len(ids), threads_per_core)]
        cells.append(NUMACell(id=node, cpuset=frozenset(ids), pcpuset=frozenset(ids),
                              memory=memory, siblings=tuple(siblings), socket=node))
    return NUMATopology(tuple(cells))


@dataclasses.dataclass(frozen=True)
class InstanceCell:
    """One guest NUMA node; `id` is the guest node until fitted, then the host cell."""

    id: int
    cpuset: frozenset[int]  # guest CPUs that float over the host cell's shared CPUs
    pcpuset: frozenset[int]  # guest CPUs pinned one to one to dedicated host CPUs
    memory: int  # MiB
    pagesize: int | None = None  # KiB or a MEMPAGES_* request
    cpu_policy: str | None = None  # shared, dedicated, mixed
    cpu_thread_policy: str | None = None  # prefer, isolate, require
    cpu_pinning: tuple[tuple[int, int], ...] = ()  # (guest CPU, host CPU) once fitted


@dataclasses.dataclass(frozen=True)
class InstanceTopology:
    cells: tuple[InstanceCell, ...]

    def __len__(self) -> int:
        return len(self.cells)
