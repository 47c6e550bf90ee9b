"""Table-driven: the pre-placement resource filters with Nova's ratio semantics."""

import pytest

from novalite.scheduler.filters.resource_filters import CoreFilter, DiskFilter, RamFilter
from tests import builders


def spec(**flavor):
    return builders.request_spec(flavor=builders.flavor(**flavor))


# node: 16 pCPU, 65536 MB (512 reserved), 1024 GB
@pytest.mark.parametrize(("node", "flavor", "passes"), [
    ({}, {"memory_mb": 65024}, True),                       # exactly what is free
    ({}, {"memory_mb": 65025}, False),
    ({"memory_mb_used": 60000}, {"memory_mb": 5024}, True),
    ({"memory_mb_used": 60000}, {"memory_mb": 5025}, False),
    ({"ram_allocation_ratio": 1.5}, {"memory_mb": 97792}, True),   # 65536*1.5 - 512
    ({"ram_allocation_ratio": 1.5}, {"memory_mb": 97793}, False),
])
def test_ram_filter(node, flavor, passes):
    state = builders.host_state(**node)
    assert RamFilter().host_passes(state, spec(**flavor)) is passes
    assert state.limits["memory_mb"] == 65536 * node.get("ram_allocation_ratio", 1.0)


@pytest.mark.parametrize(("node", "flavor", "passes"), [
    ({}, {"vcpus": 16}, True),
    ({}, {"vcpus": 17}, False),                              # more than the host's CPUs
    ({"vcpus_used": 60}, {"vcpus": 4}, True),                # 16 x 4.0 = 64
    ({"vcpus_used": 61}, {"vcpus": 4}, False),
    ({"vcpus_used": 16, "cpu_allocation_ratio": 1.0}, {"vcpus": 1}, False),
    ({"vcpus": 0}, {"vcpus": 64}, True),                     # nothing reported: pass
])
def test_core_filter(node, flavor, passes):
    assert CoreFilter().host_passes(builders.host_state(**node), spec(**flavor)) is passes


@pytest.mark.parametrize(("node", "flavor", "passes"), [
    ({}, {"root_gb": 1024}, True),
    ({}, {"root_gb": 1000, "ephemeral_gb": 24, "swap": 1}, False),
    ({"local_gb_used": 1000}, {"root_gb": 24}, True),
    ({"local_gb_used": 1000}, {"root_gb": 25}, False),
    ({"local_gb_used": 1000, "disk_allocation_ratio": 2.0}, {"root_gb": 1048}, True),
    ({"reserved_host_disk_mb": 2048}, {"root_gb": 1023}, False),
])
def test_disk_filter(node, flavor, passes):
    assert DiskFilter().host_passes(builders.host_state(**node), spec(**flavor)) is passes
