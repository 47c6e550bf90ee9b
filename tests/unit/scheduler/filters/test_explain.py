"""Each filter that can say why a host failed says it with the numbers it compared."""

import json

from novalite.objects.image import ImageMeta
from novalite.objects.request_spec import InstanceGroup
from novalite.scheduler.filters.affinity_filter import (
    DifferentHostFilter,
    ServerGroupAffinityFilter,
    ServerGroupAntiAffinityFilter,
)
from novalite.scheduler.filters.aggregate_filters import AggregateRamFilter
from novalite.scheduler.filters.compute_filter import ComputeFilter
from novalite.scheduler.filters.numa_topology_filter import NUMATopologyFilter
from novalite.scheduler.filters.pci_passthrough_filter import PciPassthroughFilter
from novalite.scheduler.filters.resource_filters import CoreFilter, DiskFilter, RamFilter
from tests import builders


def spec(**flavor):
    return builders.request_spec(flavor=builders.flavor(**flavor))


def test_resource_filters_give_free_and_wanted():
    host = builders.host_state(memory_mb_used=64512, vcpus=4, vcpus_used=3,
                               cpu_allocation_ratio=1.0, local_gb=10,
                               local_gb_used=9)  # 512 MB RAM, 1 vCPU, 1 GB disk free
    request = spec(memory_mb=2048, vcpus=2, root_gb=5)
    assert RamFilter().explain(host, request) == "512 MB free, 2,048 MB wanted"
    assert CoreFilter().explain(host, request) == "1 vCPUs free, 2 wanted"
    assert DiskFilter().explain(host, request) == "1,024 MB disk free, 5,120 MB wanted"
    assert CoreFilter().explain(host, spec(vcpus=8)) == "4 vCPUs on the host, 8 wanted"


def test_an_aggregate_ratio_is_the_one_explained():
    host = builders.host_state(memory_mb_used=64512)
    host.aggregates = [builders.aggregate(1, name="a", metadata={"ram_allocation_ratio": "2.0"})]
    assert AggregateRamFilter().explain(host, spec(memory_mb=99999)) == \
        "66,048 MB free, 99,999 MB wanted"
    assert host.ram_allocation_ratio == 1.0  # the host's own ratio is put back


def test_compute_filter_names_the_service_state():
    assert ComputeFilter().explain(builders.host_state(service_up=False), spec()) == \
        "service down"
    assert ComputeFilter().explain(builders.host_state(service_disabled=True), spec()) == \
        "service disabled"


def test_group_filters_name_the_members_and_hosts():
    anti = builders.request_spec(instance_group=InstanceGroup(
        uuid="g", policy="anti-affinity", members=["m1", "m2"]))
    host = builders.host_state(instances={"m1"})
    assert ServerGroupAntiAffinityFilter().explain(host, anti) == \
        "holds 1 of the group's members, 1 allowed"
    near = builders.request_spec(instance_group=InstanceGroup(
        uuid="g", policy="affinity", hosts=["h1", "h2"]))
    assert ServerGroupAffinityFilter().explain(host, near) == \
        "not a host of the group (on h1, h2)"
    apart = builders.request_spec(scheduler_hints={"different_host": ["m1"]})
    assert DifferentHostFilter().explain(host, apart) == "holds different_host instance m1"


def test_numa_filter_says_what_did_not_fit():
    request = builders.request_spec(flavor=builders.flavor(
        vcpus=4, memory_mb=2048, extra_specs={"hw:numa_nodes": "2"}),
        image=ImageMeta(id="img", properties={}))
    assert NUMATopologyFilter().explain(builders.host_state(), request) == \
        "the host reports no NUMA topology"


def test_pci_filter_counts_free_and_wanted_devices(conf):
    conf.set_override("alias", [json.dumps({"name": "nic", "vendor_id": "8086",
                                            "product_id": "1520"})], group="pci")
    request = builders.request_spec(flavor=builders.flavor(
        extra_specs={"pci_passthrough:alias": "nic:2"}))
    host = builders.host_state(pci_stats=[{"vendor_id": "8086", "product_id": "1520",
                                           "count": 1, "numa_node": 0}])
    assert PciPassthroughFilter().explain(host, request) == "1 PCI devices free, 2 wanted"
