"""Table-driven: NUMATopologyFilter over hosts with NUMA cells, pinned CPUs, thread
siblings and huge pages; the array form answers as host_passes; a choice consumes."""

import copy

import numpy as np
import pytest

from novalite.hardware import numa
from novalite.objects.image import ImageMeta
from novalite.scheduler.filters.numa_topology_filter import NUMATopologyFilter
from novalite.scheduler.host_table import HostTable
from tests import builders


def topology(cpus=8, memory=8192, nodes=2, threads=2, **cell_changes):
    """2 cells of 4 CPUs (thread siblings in pairs) and 4096 MB each, by default;
    cell_changes: {cell id: {field: value}}."""
    cells = numa.evenly_split(cpus, memory, nodes, threads).to_dict()["cells"]
    for cell in cells:
        cell.update(cell_changes.get(f"cell{cell['id']}", {}))
    return {"cells": cells}


def hugepages(small=1048576, large=0):
    return [{"size_kb": 4, "total": small}, {"size_kb": 2048, "total": large}]


def spec(vcpus=4, memory_mb=2048, image=None, **extra_specs):
    flavor = builders.flavor(vcpus=vcpus, memory_mb=memory_mb,
                             extra_specs={k.replace("__", ":").replace("_dot_", "."): v
                                          for k, v in extra_specs.items()})
    return builders.request_spec(flavor=flavor, image=ImageMeta(id="img", properties=image
                                                                or {}))


def passes(state, request):
    flt = NUMATopologyFilter()
    answer = flt.host_passes(state, request)
    table = HostTable()
    unbound = copy.copy(state)
    unbound.limits = {}
    table.add(unbound)
    array = flt.filter_array(table, np.arange(1), request)
    assert array is None or array.tolist() == [answer]
    return answer


SMT = topology()
NO_SMT = topology(threads=1)


@pytest.mark.parametrize(("host", "request_", "expected"), [
    # No NUMA needs: every host passes, with or without a topology.
    (None, spec(), True),
    (SMT, spec(), True),
    (SMT, spec(hw__cpu_policy="shared"), True),
    # NUMA nodes: enough cells, evenly split or as asked.
    (SMT, spec(hw__numa_nodes="2"), True),
    (None, spec(hw__numa_nodes="1"), False),                 # the host reports no cells
    (SMT, spec(vcpus=6, memory_mb=3072, hw__numa_nodes="3"), False),  # only 2 cells
    (SMT, spec(memory_mb=5000, hw__numa_nodes="1"), False),   # a 4096 MB cell
    (SMT, spec(hw__numa_nodes="2", hw__numa_cpus_dot_0="0", hw__numa_cpus_dot_1="1-3",
               hw__numa_mem_dot_0="512", hw__numa_mem_dot_1="1536"), True),
    (SMT, spec(vcpus=6, memory_mb=4608, hw__numa_nodes="2", hw__numa_cpus_dot_0="0",
               hw__numa_cpus_dot_1="1-5", hw__numa_mem_dot_0="512",
               hw__numa_mem_dot_1="4096"), False),            # 5 shared vCPUs > 4 CPUs
    (SMT, spec(image={"hw_numa_nodes": "2"}), True),
    (SMT, spec(image={"hw_numa_nodes": "4"}, vcpus=4, memory_mb=4096), False),
    # Pinned CPUs: per cell, free dedicated CPUs.
    (SMT, spec(hw__cpu_policy="dedicated"), True),
    (SMT, spec(vcpus=5, hw__cpu_policy="dedicated"), False),   # 4 CPUs per cell
    (SMT, spec(vcpus=8, memory_mb=4096, hw__cpu_policy="dedicated", hw__numa_nodes="2"),
     True),
    (topology(cell0={"pinned_cpus": [0, 1, 2]}, cell1={"pinned_cpus": [4, 5, 6]}),
     spec(vcpus=2, hw__cpu_policy="dedicated"), False),
    (topology(cell0={"pinned_cpus": [0, 1, 2]}, cell1={"pinned_cpus": [4, 5]}),
     spec(vcpus=2, hw__cpu_policy="dedicated"), True),
    (SMT, spec(image={"hw_cpu_policy": "dedicated"}), True),
    (SMT, spec(vcpus=4, hw__cpu_policy="mixed", hw__cpu_dedicated_mask="^0"), True),
    # Thread policies.
    (SMT, spec(vcpus=2, hw__cpu_policy="dedicated", hw__cpu_thread_policy="require"), True),
    (NO_SMT, spec(vcpus=2, hw__cpu_policy="dedicated", hw__cpu_thread_policy="require"),
     False),
    (NO_SMT, spec(vcpus=2, hw__cpu_policy="dedicated", hw__cpu_thread_policy="prefer"),
     True),
    (SMT, spec(vcpus=2, hw__cpu_policy="dedicated", hw__cpu_thread_policy="isolate"), True),
    (SMT, spec(vcpus=3, hw__cpu_policy="dedicated", hw__cpu_thread_policy="isolate"),
     False),                                                   # 2 free cores per cell
    (topology(cell0={"pinned_cpus": [0]}, cell1={"pinned_cpus": [4]}),
     spec(vcpus=2, hw__cpu_policy="dedicated", hw__cpu_thread_policy="isolate"), False),
    (NO_SMT, spec(vcpus=3, hw__cpu_policy="dedicated", hw__cpu_thread_policy="isolate"),
     True),
    (SMT, spec(vcpus=2, hw__cpu_policy="dedicated", image={"hw_cpu_thread_policy":
                                                           "require"}), True),
    # Huge pages.
    (topology(cell0={"mempages": hugepages(large=1024)}), spec(hw__mem_page_size="large"),
     True),                                                    # 1024 x 2 MB = 2048 MB
    (topology(cell0={"mempages": hugepages(large=1023)}), spec(hw__mem_page_size="large"),
     False),
    (topology(cell0={"mempages": hugepages(large=1024)}), spec(hw__mem_page_size="2MB"),
     True),
    (topology(cell0={"mempages": hugepages(large=1024)}), spec(hw__mem_page_size="1GB"),
     False),                                                   # no 1 GB pages
    (SMT, spec(hw__mem_page_size="large"), False),             # no page sizes reported
    (topology(cell0={"mempages": hugepages(large=1024)}),
     spec(hw__mem_page_size="any", image={"hw_mem_page_size": "large"}), True),
    # Malformed or conflicting requests fit nowhere (Nova refuses them at the API).
    (SMT, spec(vcpus=3, hw__numa_nodes="2"), False),           # 3 vCPUs over 2 nodes
    (SMT, spec(hw__numa_nodes="2", image={"hw_numa_nodes": "2"}), False),
    (SMT, spec(hw__cpu_policy="shared", image={"hw_cpu_policy": "dedicated"}), False),
    (SMT, spec(hw__cpu_policy="pinned"), False),
    (SMT, spec(hw__cpu_thread_policy="isolate"), False),       # thread policy, no pinning
    (SMT, spec(image={"hw_mem_page_size": "large"}), False),   # the flavor must allow it
    (SMT, spec(hw__cpu_policy="mixed"), False),                # mixed needs a mask
])
def test_numa_topology_filter(conf, host, request_, expected):
    assert passes(builders.host_state(numa_topology=host), request_) is expected


@pytest.mark.parametrize(("usage", "cpu_ratio", "ram_ratio", "expected"), [
    ({"cpu_usage": 16}, 4.0, 1.0, False),     # 4 CPUs x 4.0 already used in each cell
    ({"cpu_usage": 16}, 8.0, 1.0, True),
    ({"cpu_usage": 15}, 4.0, 1.0, True),
    ({"memory_usage": 3800}, 4.0, 1.0, False),
    ({"memory_usage": 3800}, 4.0, 1.5, True),
])
def test_shared_cpus_and_memory_under_the_allocation_ratios(conf, usage, cpu_ratio,
                                                            ram_ratio, expected):
    state = builders.host_state(numa_topology=topology(cell0=usage, cell1=usage),
                                cpu_allocation_ratio=cpu_ratio, ram_allocation_ratio=ram_ratio)
    request = spec(vcpus=1, memory_mb=512, hw__numa_nodes="1")
    assert passes(state, request) is expected
    if expected:
        assert state.limits["numa_topology"] == {"cpu_allocation_ratio": cpu_ratio,
                                                 "ram_allocation_ratio": ram_ratio}


def test_a_request_without_numa_needs_sets_no_limits(conf):
    state = builders.host_state(numa_topology=SMT)
    assert NUMATopologyFilter().host_passes(state, spec())
    assert "numa_topology" not in state.limits


def test_consuming_pins_cpus_until_the_host_is_full(conf):
    state = builders.host_state(numa_topology=SMT)
    request = spec(vcpus=4, memory_mb=1024, hw__cpu_policy="dedicated")
    for _ in range(2):  # one guest per cell
        assert NUMATopologyFilter().host_passes(state, request)
        state.consume_from_request(request)
    assert not NUMATopologyFilter().host_passes(state, request)
    assert [len(c.pinned_cpus) for c in state.numa_topology.cells] == [4, 4]
    assert [c.memory_usage for c in state.numa_topology.cells] == [1024, 1024]
    state.release_request(request)
    assert NUMATopologyFilter().host_passes(state, request)


def test_consuming_huge_pages(conf):
    state = builders.host_state(numa_topology=topology(cell0={"mempages": hugepages(
        large=1024)}))
    request = spec(memory_mb=1024, hw__mem_page_size="large")
    state.consume_from_request(request)
    pages = {p.size_kb: p.used for p in state.numa_topology.cells[0].mempages}
    assert pages == {4: 0, 2048: 512}
