"""Fitting a guest NUMA topology onto a host's and counting what it uses (Nova's
numa_fit_instance_to_host and numa_usage_from_instance_numa in nova/virt/hardware.py),
compactly: host cells tried in Nova's order and permutations, dedicated CPUs pinned onto
thread siblings as the thread policy says, shared CPUs and memory checked against the
allocation ratios, PCI devices taken from the cells the guest gets. What a request asks
for is novalite.hardware.numa_request.
"""

from __future__ import annotations

import collections
import dataclasses
import itertools
from collections.abc import Sequence
from typing import Any

from novalite.conf import CONF
from novalite.hardware import pci
from novalite.hardware.numa import (
    MEMPAGES_ANY,
    MEMPAGES_LARGE,
    MEMPAGES_SMALL,
    InstanceCell,
    InstanceTopology,
    NUMACell,
    NUMATopology,
    PageSize,
)
from novalite.hardware.numa_request import PINNED, InvalidNUMARequest, numa_constraints

__all__ = ["InvalidNUMARequest", "fit_instance_to_host", "numa_constraints",
           "satisfies_cpu_policy", "take", "usage_from_instance"]

FLOATING = ("shared", "mixed", None)


def _fitting_pagesize(cell: NUMACell, inst: InstanceCell, pagesize: int) -> int | None:
    sizes = sorted((p.size_kb for p in cell.mempages), reverse=True)
    candidates = {MEMPAGES_SMALL: sizes[-1:], MEMPAGES_LARGE: sizes[:-1],
                  MEMPAGES_ANY: sizes}.get(pagesize, [pagesize])
    return next((s for s in candidates if cell.can_fit_pagesize(s, inst.memory * 1024)),
                None)


def _memory_fits(cell: NUMACell, inst: InstanceCell) -> InstanceCell | None:
    pinned = inst.cpu_policy in PINNED
    if inst.pagesize:
        size = _fitting_pagesize(cell, inst, inst.pagesize)
        return dataclasses.replace(inst, pagesize=size) if size else None
    if cell.mempages:  # page-aware: the smallest pages, overcommit unless pinned
        smallest = min(p.size_kb for p in cell.mempages)
        return inst if cell.can_fit_pagesize(smallest, inst.memory * 1024,
                                             use_free=pinned) else None
    # Never overcommit a guest against itself; pinned guests never overcommit at all.
    return inst if (cell.avail_memory if pinned else cell.memory) >= inst.memory else None


def _pinning(threads_no: int, sibling_sets: Sequence[frozenset[int]],
             wanted: list[int]) -> tuple[tuple[int, int], ...] | None:
    if threads_no * len(sibling_sets) < len(wanted):
        return None
    usable = itertools.chain.from_iterable(sorted(s)[:threads_no] for s in sibling_sets)
    return tuple(zip(wanted, usable, strict=False))


def _pack_onto_cores(cell: NUMACell, inst: InstanceCell) -> tuple[tuple[int, int], ...] | None:
    """Pin the guest's dedicated CPUs onto free host CPUs: siblings first (emptier cores
    first), `isolate` one thread per fully free core, `require` only on siblings."""
    threads_per_core = max((len(s) for s in cell.siblings), default=1) or 1
    by_threads: dict[int, list[frozenset[int]]] = collections.defaultdict(list)
    for sibling in cell.free_siblings:
        for threads_no in range(1, len(sibling) + 1):
            by_threads[threads_no].append(sibling)
    wanted, policy = sorted(inst.pcpuset), inst.cpu_thread_policy
    if policy == "isolate":
        if threads_per_core not in by_threads or \
                (threads_per_core != 1 and cell.pcpuset != cell.cpuset):
            return None  # no fully free core, or SMT without the legacy pinning setup
        return _pinning(1, by_threads[threads_per_core], wanted)
    if policy == "require" and threads_per_core <= 1:
        return None
    for threads_no, sibling_sets in sorted(by_threads.items(), reverse=True):
        if policy == "require" and threads_no <= 1:
            continue
        found = _pinning(threads_no, sibling_sets, wanted)
        if found:
            return found
    if policy == "require":
        return None
    singles = [frozenset([cpu]) for s in by_threads[1] for cpu in sorted(s)]
    return _pinning(1, singles, wanted)


def _fit_cell(cell: NUMACell, inst: InstanceCell,
              limits: dict[str, float] | None) -> InstanceCell | None:
    fitted = _memory_fits(cell, inst)
    if fitted is None:
        return None
    pinned, floating = inst.cpu_policy in PINNED, inst.cpu_policy in FLOATING
    if pinned and len(inst.pcpuset) > len(cell.pcpuset):
        return None
    if floating and len(inst.cpuset) > len(cell.cpuset):
        return None
    pinning: tuple[tuple[int, int], ...] = ()
    if pinned:
        if len(inst.pcpuset) > cell.avail_pcpus:
            return None
        packed = _pack_onto_cores(cell, inst)
        if packed is None:
            return None
        pinning = packed
    if floating and limits:
        cpu_limit = len(cell.cpuset) * limits["cpu_allocation_ratio"]
        ram_limit = cell.memory * limits["ram_allocation_ratio"]
        if cell.cpu_usage + len(inst.cpuset) > cpu_limit or \
                cell.memory_usage + inst.memory > ram_limit:
            return None
    return dataclasses.replace(fitted, id=cell.id, cpu_pinning=pinning)


def _ordered_cells(host: NUMATopology, inst: InstanceTopology,
                   pci_requests: Sequence[pci.PciRequest],
                   pci_pools: Sequence[pci.PciPool] | None) -> list[NUMACell]:
    """Nova's order for trying host cells when the guest needs fewer than the host has:
    most free memory and CPUs first (least, when packing), cells with PCI devices first
    only for PCI requests."""
    cells = list(host.cells)
    if len(host) == len(inst):
        return cells
    pack = CONF.compute.packing_host_numa_cells_allocation_strategy
    cells.sort(key=lambda c: c.avail_memory, reverse=not pack)
    if inst.cells[0].cpu_policy in (None, "shared"):
        cells.sort(key=lambda c: c.cpu_usage, reverse=pack)
    else:
        cells.sort(key=lambda c: len(c.free_pcpus), reverse=not pack)
    if pci_pools:
        per_cell: dict[Any, int] = collections.Counter()
        for pool in pci_pools:
            per_cell[pool.get("numa_node")] += pool.count
        cells.sort(key=lambda c: per_cell.get(c.id, 0), reverse=bool(pci_requests))
    return cells


def fit_instance_to_host(host: NUMATopology | None, inst: InstanceTopology | None,
                         limits: dict[str, float] | None = None,
                         pci_requests: Sequence[pci.PciRequest] = (),
                         pci_pools: Sequence[pci.PciPool] | None = None
                         ) -> InstanceTopology | None:
    """The guest cells placed on host cells (ids set to the host cells', dedicated CPUs
    pinned) for the first permutation that fits, PCI requests included; else None."""
    if not (host and inst) or len(host) < len(inst):
        return None
    fits: dict[tuple[int, int], InstanceCell | None] = {}
    for perm in itertools.permutations(_ordered_cells(host, inst, pci_requests, pci_pools),
                                       len(inst)):
        chosen: list[InstanceCell] = []
        for cell, inst_cell in zip(perm, inst.cells, strict=True):
            pair = (cell.id, inst_cell.id)
            if pair not in fits:
                fits[pair] = _fit_cell(cell, inst_cell, limits)
            fitted = fits[pair]
            if fitted is None:
                break
            chosen.append(fitted)
        if len(chosen) != len(inst):
            continue
        if pci_requests and pci_pools is not None and not pci.support_requests(
                pci_pools, pci_requests, chosen, host):
            continue
        return InstanceTopology(tuple(chosen))
    return None


def _pages_used(cell: NUMACell, inst: InstanceCell) -> tuple[PageSize, ...]:
    size = inst.pagesize or min(p.size_kb for p in cell.mempages)
    return tuple(dataclasses.replace(p, used=max(0, p.used + inst.memory * 1024 // size))
                 if p.size_kb == size else p for p in cell.mempages)


def _with_siblings(cell: NUMACell, cpus: set[int]) -> set[int]:
    return cpus.union(*(s for s in cell.siblings if s & cpus))


def usage_from_instance(host: NUMATopology | None,
                        inst: InstanceTopology | None) -> NUMATopology | None:
    """The host topology with the fitted guest's memory, shared CPUs and pins counted."""
    if not host or not inst:
        return host
    cells = []
    for cell in host.cells:
        for inst_cell in (c for c in inst.cells if c.id == cell.id):
            pinned = set(cell.pinned_cpus)
            if inst_cell.cpu_policy in PINNED:
                cpus = {host_cpu for _, host_cpu in inst_cell.cpu_pinning}
                if inst_cell.cpu_thread_policy == "isolate":
                    cpus = _with_siblings(cell, cpus)
                pinned |= cpus
            cell = dataclasses.replace(
                cell, memory_usage=cell.memory_usage + inst_cell.memory,
                cpu_usage=cell.cpu_usage + len(inst_cell.cpuset),
                pinned_cpus=frozenset(pinned),
                mempages=_pages_used(cell, inst_cell) if cell.mempages else ())
        cells.append(cell)
    return NUMATopology(tuple(cells))


def satisfies_cpu_policy(host: NUMATopology | None, specs: dict[str, str],
                         props: dict[str, Any]) -> bool:
    """Nova's NUMATopologyFilter pre-check: a dedicated guest that requires thread
    siblings needs a host with SMT."""
    if not host:
        return True
    policies = (specs.get("hw:cpu_policy"), props.get("hw_cpu_policy"))
    threads = (specs.get("hw:cpu_thread_policy"), props.get("hw_cpu_thread_policy"))
    return "dedicated" not in policies or "require" not in threads or host.has_threads


def take(host: NUMATopology | None, pools: Sequence[pci.PciPool],
         topology: InstanceTopology | None, devices: Sequence[pci.PciRequest],
         limits: dict[str, float] | None = None
         ) -> tuple[NUMATopology | None, tuple[pci.PciPool, ...], str | None]:
    """The host's NUMA topology and PCI pools once a guest asking for `topology` and
    `devices` took its share, and why not all of it fitted (None: it all did). What does
    not fit is not taken; PCI devices come from the NUMA cells the guest got."""
    fitted, why_not = None, None
    if topology is not None:
        fitted = fit_instance_to_host(host, topology, limits, devices, pools)
        if fitted is None:
            why_not = "the guest NUMA topology does not fit the host's"
        else:
            host = usage_from_instance(host, fitted)
    pools = tuple(pools)
    if devices:
        left = pci.apply_requests(pools, devices, fitted.cells if fitted else None, host)
        if left is None:
            why_not = why_not or "the host has not got the requested PCI devices"
        else:
            pools = left
    return host, pools, why_not
