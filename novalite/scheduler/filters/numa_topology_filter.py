"""NUMATopologyFilter: a request with a NUMA topology (NUMA nodes, pinned CPUs or a page
size; see novalite.hardware.numa_fit) needs a host whose NUMA cells fit it under the host's
CPU and RAM allocation ratios, its PCI devices included. A fitting host records the
ratios as limits['numa_topology']; other requests pass every host."""

from __future__ import annotations

import logging

import numpy as np

from novalite import exception
from novalite.hardware import numa_fit, pci
from novalite.hardware.numa import InstanceTopology
from novalite.objects.request_spec import RequestSpec
from novalite.scheduler.filters import BaseHostFilter
from novalite.scheduler.host_state import HostState
from novalite.scheduler.host_table import HostTable

LOG = logging.getLogger(__name__)


def _wanted(spec: RequestSpec) -> tuple[InstanceTopology | None,
                                        tuple[pci.PciRequest, ...]] | None:
    """(guest NUMA topology or None, PCI requests), or None for a malformed request."""
    try:
        return (numa_fit.numa_constraints(spec.flavor, spec.image),
                pci.requests_from_flavor(spec.flavor, spec.image))
    except exception.Invalid as exc:
        LOG.debug("No host fits instance %s: %s", spec.instance_uuid, exc.format_message())
        return None


def _limits(host_state: HostState) -> dict[str, float]:
    return {"cpu_allocation_ratio": host_state.cpu_allocation_ratio,
            "ram_allocation_ratio": host_state.ram_allocation_ratio}


def _fits(host_state: HostState, spec: RequestSpec, topology: InstanceTopology | None,
          devices: tuple[pci.PciRequest, ...]) -> bool:
    props = spec.image.properties if spec.image else {}
    if not numa_fit.satisfies_cpu_policy(host_state.numa_topology, spec.flavor.extra_specs,
                                         props):
        return False  # dedicated CPUs that require thread siblings, on a host without SMT
    if topology is None:
        return True
    return numa_fit.fit_instance_to_host(host_state.numa_topology, topology,
                                         _limits(host_state), devices,
                                         host_state.pci_stats) is not None


class NUMATopologyFilter(BaseHostFilter):
    def host_passes(self, host_state: HostState, spec: RequestSpec) -> bool:
        wanted = _wanted(spec)
        if wanted is None or not _fits(host_state, spec, *wanted):
            return False
        if wanted[0] is not None:
            host_state.limits["numa_topology"] = _limits(host_state)
        return True

    def explain(self, host_state: HostState, spec: RequestSpec) -> str:
        wanted = _wanted(spec)
        if wanted is None:
            return "the request's NUMA or PCI properties are invalid"
        topology, devices = wanted
        props = spec.image.properties if spec.image else {}
        if not numa_fit.satisfies_cpu_policy(host_state.numa_topology,
                                             spec.flavor.extra_specs, props):
            return "the CPU thread policy needs SMT siblings the host lacks"
        if topology is None:
            return ""
        if host_state.numa_topology is None:
            return "the host reports no NUMA topology"
        cells = len(host_state.numa_topology.cells)
        extra = f" and {sum(r.count for r in devices)} PCI devices" if devices else ""
        return (f"{len(topology.cells)} guest NUMA cells{extra} do not fit the host's "
                f"{cells} cells")

    def filter_array(self, table: HostTable, rows: np.ndarray, spec: RequestSpec) -> np.ndarray:
        wanted = _wanted(spec)
        if wanted is None:
            return np.zeros(len(rows), dtype=bool)
        if wanted[0] is None:
            return np.ones(len(rows), dtype=bool)  # the common request: nothing to fit
        devices = wanted[1]
        return table.per_key(
            rows, lambda s: (s.numa_topology, s.pci_stats if devices else None,
                             s.cpu_allocation_ratio, s.ram_allocation_ratio),
            lambda s: _fits(s, spec, *wanted))
