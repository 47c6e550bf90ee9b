"""NUMA cells, PCI devices and failed builds through the running cloud: the computes
report them, the scheduler's filters and weighers read them, choices use them up."""

import json

import pytest

from novalite.db.api import compute_nodes, flavors
from novalite.objects.flavor import Flavor

FILTERS = ["ComputeFilter", "RamFilter", "NUMATopologyFilter", "PciPassthroughFilter"]


def _flavor(flavorid, vcpus, **extra_specs):
    flavors.flavor_create(Flavor(flavorid=flavorid, name=f"f-{flavorid}", vcpus=vcpus,
                                 memory_mb=1024, root_gb=1, extra_specs=extra_specs))
    return flavorid


@pytest.fixture
def device_cloud(conf, cloud_factory):
    conf.set_override("enabled_filters", FILTERS, group="filter_scheduler")
    conf.set_override("alias", [json.dumps({"name": "nic", "vendor_id": "8086",
                                            "product_id": "1520"})], group="pci")
    return cloud_factory(hosts=2, vcpus=8, numa_nodes=2, threads_per_core=2,
                         pci_devices=[json.dumps({"vendor_id": "8086", "product_id": "1520",
                                                  "count": 1, "numa_node": 0})])


def test_pinned_guests_fill_the_numa_cells_then_find_no_host(device_cloud):
    cloud = device_cloud
    pinned = _flavor("pinned", 4, **{"hw:cpu_policy": "dedicated"})
    servers = [cloud.boot(f"p{i}", flavor=pinned) for i in range(4)]  # 2 hosts x 2 cells
    hosts = [cloud.wait_status(s, "ACTIVE")["OS-EXT-SRV-ATTR:host"] for s in servers]
    assert sorted(hosts) == ["compute1", "compute1", "compute2", "compute2"]
    late = cloud.boot("late", flavor=pinned)
    fault = cloud.wait_status(late, "ERROR")["fault"]["message"]
    assert "NUMATopologyFilter removed 2" in fault, fault


def test_pci_devices_are_used_up(device_cloud):
    cloud = device_cloud
    nic = _flavor("nic", 1, **{"pci_passthrough:alias": "nic:1"})
    first, second = cloud.boot("a", flavor=nic), cloud.boot("b", flavor=nic)
    hosts = {cloud.wait_status(s, "ACTIVE")["OS-EXT-SRV-ATTR:host"] for s in (first, second)}
    assert hosts == {"compute1", "compute2"}  # one device each
    third = cloud.boot("c", flavor=nic)
    assert "PciPassthroughFilter removed 2" in cloud.wait_status(third, "ERROR")["fault"][
        "message"]


def test_hosts_that_failed_builds_are_avoided(conf, cloud_factory):
    cloud = cloud_factory(hosts=2)
    broken = cloud.compute("compute1")

    def fail(*args, **kwargs):
        raise RuntimeError("the hypervisor is unwell")

    broken.driver.spawn = fail
    first = cloud.boot("first")  # wherever it starts, it ends on host2
    assert cloud.wait_status(first, "ACTIVE")["OS-EXT-SRV-ATTR:host"] == "compute2"
    cloud.wait(lambda: compute_nodes.compute_node_get_by_host("compute1")[0].stats.get(
        "failed_builds") == "1")
    for name in ("second", "third"):  # compute1 would be as good but for its failure
        server = cloud.boot(name)
        assert cloud.wait_status(server, "ACTIVE")["OS-EXT-SRV-ATTR:host"] == "compute2"
