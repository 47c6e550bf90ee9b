"""From request specs to placement queries, and the pre-filters."""

from __future__ import annotations

import urllib.parse

import pytest

from novalite import exception
from novalite.objects.flavor import Flavor
from novalite.objects.image import ImageMeta
from novalite.objects.request_spec import RequestSpec
from novalite.scheduler import request_filter
from novalite.scheduler.host_table import HostTable
from novalite.scheduler.resource_request import ResourceRequest
from tests.builders import host_state


def _spec(extra_specs=None, image_props=None, **kwargs) -> RequestSpec:
    flavor = Flavor(flavorid="1", name="f", memory_mb=512, vcpus=2, root_gb=10,
                    ephemeral_gb=5, swap=1500, extra_specs=extra_specs or {})
    image = ImageMeta(id="img", disk_format="qcow2", properties=image_props or {})
    return RequestSpec(instance_uuid="u", flavor=flavor, image=image, **kwargs)


def _params(request: ResourceRequest) -> dict[str, list[str]]:
    return urllib.parse.parse_qs(request.to_querystring())


def test_flavor_sizes_become_the_unsuffixed_group():
    request = ResourceRequest.from_request_spec(_spec())
    # disk: root + ephemeral + swap rounded up to whole GiB
    assert _params(request) == {"resources": ["DISK_GB:17,MEMORY_MB:512,VCPU:2"]}


def test_extra_specs_override_resources_and_add_traits_and_groups():
    request = ResourceRequest.from_request_spec(_spec({
        "resources:VCPU": "0", "resources:PCPU": "2", "trait:HW_CPU_X86_AVX2": "required",
        "trait:CUSTOM_SLOW": "forbidden", "resources1:CUSTOM_FPGA": "1",
        "trait1:CUSTOM_FPGA_XILINX": "required", "resources_NET:NET_BW_EGR_KILOBIT_PER_SEC":
        "1000"}, image_props={"trait:CUSTOM_IMG": "required"}))
    params = _params(request)
    assert params["resources"] == ["DISK_GB:17,MEMORY_MB:512,PCPU:2"]
    assert params["required"] == ["CUSTOM_IMG,HW_CPU_X86_AVX2,!CUSTOM_SLOW"]
    assert params["resources1"] == ["CUSTOM_FPGA:1"]
    assert params["required1"] == ["CUSTOM_FPGA_XILINX"]
    assert params["resources_NET"] == ["NET_BW_EGR_KILOBIT_PER_SEC:1000"]
    assert params["group_policy"] == ["none"]  # two suffixed groups and none given


def test_a_bad_amount_is_a_clear_error():
    with pytest.raises(exception.Invalid, match="resources:VCPU=two"):
        ResourceRequest.from_request_spec(_spec({"resources:VCPU": "two"}))


def _table(*hosts: str) -> HostTable:
    table = HostTable()
    for host in hosts:
        table.add(host_state(host))
    return table


def test_pre_filters_zone_status_limit_and_image_type(conf):
    conf.set_override("query_placement_for_image_type_support", True, group="scheduler")
    zones = {"az1": ["agg-a", "agg-b"]}
    request = request_filter.resource_request(_spec(availability_zone="az1"),
                                              _table("c1", "c2"),
                                              lambda zone: zones.get(zone, []))
    params = _params(request)
    assert params["member_of"] == ["in:agg-a,agg-b"]
    assert params["root_required"] == ["COMPUTE_IMAGE_TYPE_QCOW2,!COMPUTE_STATUS_DISABLED"]
    assert params["limit"] == ["1000"]


def test_a_zone_without_aggregates_asks_no_member_of(conf):
    request = request_filter.resource_request(_spec(availability_zone="nova"), _table("c1"),
                                              lambda zone: [])
    assert "member_of" not in _params(request)


def test_one_named_host_becomes_in_tree_and_several_drop_the_limit(conf):
    table = _table("c1", "c2", "c3")
    one = request_filter.resource_request(_spec(force_hosts=["c2"]), table, lambda z: [])
    assert _params(one)["in_tree"] == [next(s.uuid for s in table.states if s.host == "c2")]
    several = request_filter.resource_request(_spec(force_hosts=["c1", "c2"]), table,
                                              lambda z: [])
    assert "limit" not in _params(several) and "in_tree" not in _params(several)


def test_group_and_host_hints_drop_the_limit(conf):
    spec = _spec(scheduler_hints={"different_host": ["x"]})
    assert "limit" not in _params(request_filter.resource_request(spec, _table("c1"),
                                                                  lambda z: []))
