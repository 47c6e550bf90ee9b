import pytest

from novalite.objects.image import ImageMeta
from novalite.scheduler.filters.aggregate_filters import (
    AggregateCoreFilter,
    AggregateImagePropertiesIsolation,
    AggregateInstanceExtraSpecsFilter,
    AggregateIoOpsFilter,
    AggregateMultiTenancyIsolation,
    AggregateNumInstancesFilter,
    AggregateRamFilter,
    AggregateTypeAffinityFilter,
    AvailabilityZoneFilter,
)
from tests import builders


def in_aggregates(*metadata, **state):
    aggs = [builders.aggregate(i, metadata=md, hosts=["host1"])
            for i, md in enumerate(metadata)]
    return builders.host_state(aggregates=aggs, **state)


def spec(extra_specs=None, **kw):
    return builders.request_spec(flavor=builders.flavor(extra_specs=extra_specs or {}), **kw)


@pytest.mark.parametrize(("metadata", "extra_specs", "passes"), [
    ({}, {}, True),
    ({"ssd": "true"}, {"ssd": "true"}, True),
    ({"ssd": "false"}, {"ssd": "true"}, False),
    ({}, {"ssd": "true"}, False),                      # a key the aggregates lack fails
    ({"ssd": "true"}, {"aggregate_instance_extra_specs:ssd": "true"}, True),
    ({"cpus": "16"}, {"aggregate_instance_extra_specs:cpus": ">= 8"}, True),
    ({}, {"hw:cpu_policy": "dedicated"}, True),        # other scopes: not ours
])
def test_aggregate_instance_extra_specs(metadata, extra_specs, passes):
    assert AggregateInstanceExtraSpecsFilter().host_passes(
        in_aggregates(metadata), spec(extra_specs)) is passes


@pytest.mark.parametrize(("metadata", "project", "passes"), [
    ({}, "p1", True),
    ({"filter_tenant_id": "p1"}, "p1", True),
    ({"filter_tenant_id": "p2,p3"}, "p1", False),
    ({"filter_tenant_id": "p2", "filter_tenant_id2": "p1"}, "p1", True),
])
def test_multi_tenancy_isolation(metadata, project, passes):
    assert AggregateMultiTenancyIsolation().host_passes(
        in_aggregates(metadata), spec(project_id=project)) is passes


def test_type_affinity():
    flt = AggregateTypeAffinityFilter()
    assert flt.host_passes(in_aggregates({"instance_type": "m1.tiny, m1.small"}), spec())
    assert not flt.host_passes(in_aggregates({"instance_type": "m1.large"}), spec())
    assert flt.host_passes(in_aggregates({}), spec())


def test_image_properties_isolation():
    host = in_aggregates({"os_distro": "debian,ubuntu"})
    flt = AggregateImagePropertiesIsolation()
    image = lambda **p: spec(image=ImageMeta(id="i", properties=p))  # noqa: E731
    assert flt.host_passes(host, image(os_distro="debian"))
    assert not flt.host_passes(host, image(os_distro="windows"))
    assert flt.host_passes(host, image())


@pytest.mark.parametrize(("metadata", "zone", "passes"), [
    ({}, None, True), ({}, "nova", True), ({}, "az1", False),
    ({"availability_zone": "az1"}, "az1", True), ({"availability_zone": "az1"}, "nova", False),
])
def test_availability_zone(conf, metadata, zone, passes):
    assert AvailabilityZoneFilter().host_passes(
        in_aggregates(metadata), spec(availability_zone=zone)) is passes


def test_count_limits_take_the_smallest_aggregate_value(conf):
    host = in_aggregates({"max_instances_per_host": "5"}, {"max_instances_per_host": "3"},
                         num_instances=3, num_io_ops=2)
    assert not AggregateNumInstancesFilter().host_passes(host, spec())
    assert AggregateIoOpsFilter().host_passes(host, spec())
    assert not AggregateIoOpsFilter().host_passes(
        in_aggregates({"max_io_ops_per_host": "2"}, num_io_ops=2), spec())
    bad = in_aggregates({"max_instances_per_host": "lots"}, num_instances=3)
    assert AggregateNumInstancesFilter().host_passes(bad, spec())  # falls back to 50


def test_aggregate_ratios_override_the_hosts(conf):
    full = {"memory_mb_used": 65000}  # 36 MB free at ratio 1.0
    assert not AggregateRamFilter().host_passes(in_aggregates({}, **full), spec())
    host = in_aggregates({"ram_allocation_ratio": "1.5"}, **full)
    assert AggregateRamFilter().host_passes(host, spec())
    assert host.ram_allocation_ratio == 1.0  # the host's own ratio is left as it was
    busy = in_aggregates({"cpu_allocation_ratio": "1.0"}, vcpus_used=16)
    assert not AggregateCoreFilter().host_passes(busy, spec())
