"""Table-driven: the guest NUMA topology flavors and images ask for."""

import pytest

from novalite.hardware.numa_request import InvalidNUMARequest, numa_constraints, parse_cpu_spec
from novalite.objects.image import ImageMeta
from tests import builders


@pytest.mark.parametrize(("spec", "cpus"), [
    ("0-3", {0, 1, 2, 3}), ("0-3,^2", {0, 1, 3}), ("1, 5 ,7-8", {1, 5, 7, 8}),
    ("0-5,^1-2,^4", {0, 3, 5}), ("", set())])
def test_parse_cpu_spec(spec, cpus):
    assert parse_cpu_spec(spec) == cpus


def cells(vcpus=4, memory_mb=2048, image=None, **extra_specs):
    flavor = builders.flavor(vcpus=vcpus, memory_mb=memory_mb, extra_specs=extra_specs)
    topology = numa_constraints(flavor, ImageMeta(id="i", properties=image or {}))
    if topology is None:
        return None
    return [(sorted(c.cpuset), sorted(c.pcpuset), c.memory, c.pagesize, c.cpu_policy,
             c.cpu_thread_policy) for c in topology.cells]


@pytest.mark.parametrize(("kwargs", "expected"), [
    ({}, None),
    ({"hw:cpu_policy": "shared"}, None),
    ({"hw:numa_nodes": "2"}, [([0, 1], [], 1024, None, None, None),
                              ([2, 3], [], 1024, None, None, None)]),
    ({"image": {"hw_numa_nodes": "1"}}, [([0, 1, 2, 3], [], 2048, None, None, None)]),
    ({"hw:cpu_policy": "dedicated", "hw:cpu_thread_policy": "isolate"},
     [([], [0, 1, 2, 3], 2048, None, "dedicated", "isolate")]),
    ({"resources:PCPU": "4"}, [([], [0, 1, 2, 3], 2048, None, "dedicated", None)]),
    ({"hw:cpu_policy": "dedicated", "trait:HW_CPU_HYPERTHREADING": "required"},
     [([], [0, 1, 2, 3], 2048, None, "dedicated", "require")]),
    ({"hw:cpu_policy": "mixed", "hw:cpu_dedicated_mask": "2-3"},
     [([0, 1], [2, 3], 2048, None, "mixed", None)]),
    ({"hw:mem_page_size": "2MB"}, [([0, 1, 2, 3], [], 2048, 2048, None, None)]),
    ({"hw:mem_page_size": "large"}, [([0, 1, 2, 3], [], 2048, -2, None, None)]),
    ({"hw:numa_nodes": "2", "hw:numa_cpus.0": "0,2", "hw:numa_cpus.1": "1,3",
      "hw:numa_mem.0": "1536", "hw:numa_mem.1": "512"},
     [([0, 2], [], 1536, None, None, None), ([1, 3], [], 512, None, None, None)]),
])
def test_numa_constraints(kwargs, expected):
    assert cells(**kwargs) == expected


@pytest.mark.parametrize("kwargs", [
    {"hw:numa_nodes": "0"}, {"hw:numa_nodes": "x"}, {"hw:numa_nodes": "3"},
    {"hw:numa_nodes": "2", "hw:numa_cpus.0": "0-3", "hw:numa_cpus.1": "3",
     "hw:numa_mem.0": "1024", "hw:numa_mem.1": "1024"},       # vCPU 3 twice
    {"hw:numa_nodes": "2", "hw:numa_cpus.0": "0-1", "hw:numa_cpus.1": "2-3",
     "hw:numa_mem.0": "1024", "hw:numa_mem.1": "512"},        # memory does not add up
    {"hw:numa_nodes": "1", "hw:numa_cpus.0": "0-3"},          # no hw:numa_mem.0
    {"hw:cpu_policy": "dedicated", "hw:cpu_dedicated_mask": "0"},
    {"hw:cpu_policy": "mixed", "hw:cpu_dedicated_mask": "0-3"},  # all vCPUs dedicated
    {"hw:cpu_policy": "dedicated", "resources:PCPU": "4"},
    {"resources:PCPU": "2"},                                  # must equal the vCPUs
    {"hw:cpu_thread_policy": "require"},                      # without pinning
    {"hw:cpu_policy": "dedicated", "hw:cpu_thread_policy": "always"},
    {"hw:mem_page_size": "huge"},
    {"hw:cpu_policy": "dedicated", "hw:cpu_thread_policy": "isolate",
     "image": {"hw_cpu_thread_policy": "require"}},
    {"hw:mem_page_size": "small", "image": {"hw_mem_page_size": "large"}},
])
def test_malformed_or_conflicting_requests(kwargs):
    with pytest.raises(InvalidNUMARequest):
        cells(**kwargs)
