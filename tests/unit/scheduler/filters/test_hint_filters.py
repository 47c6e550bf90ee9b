import json

import pytest

from novalite.scheduler.filters.affinity_filter import (
    DifferentHostFilter,
    SameHostFilter,
    SimpleCIDRAffinityFilter,
)
from novalite.scheduler.filters.count_filters import IoOpsFilter, NumInstancesFilter
from novalite.scheduler.filters.json_filter import JsonFilter
from tests import builders


def hints(**values):
    return builders.request_spec(scheduler_hints={k: v if isinstance(v, list) else [v]
                                                  for k, v in values.items()})


@pytest.mark.parametrize(("hint", "passes"), [
    (None, True), ("a", True), (["x", "a"], True), ("x", False)])
def test_same_host(hint, passes):
    spec = hints(same_host=hint) if hint else builders.request_spec()
    flt = SameHostFilter()
    assert flt.host_passes(builders.host_state(instances={"a", "b"}), spec) is passes
    assert flt.needs_instances(spec) is bool(hint)


@pytest.mark.parametrize(("hint", "passes"), [
    (None, True), ("x", True), (["x", "a"], False), ("a", False)])
def test_different_host(hint, passes):
    spec = hints(different_host=hint) if hint else builders.request_spec()
    assert DifferentHostFilter().host_passes(builders.host_state(instances={"a"}),
                                             spec) is passes


@pytest.mark.parametrize(("near", "cidr", "passes"), [
    (None, None, True), ("10.0.0.9", None, True), ("10.0.1.9", None, False),
    ("10.0.1.9", "/16", True), ("not-an-ip", None, False), ("10.0.0.9", "/99", False)])
def test_simple_cidr_affinity(near, cidr, passes):
    values = {k: v for k, v in (("build_near_host_ip", near), ("cidr", cidr)) if v}
    state = builders.host_state(host_ip="10.0.0.5")
    assert SimpleCIDRAffinityFilter().host_passes(state, hints(**values)) is passes


@pytest.mark.parametrize(("query", "passes"), [
    (None, True),
    ([">=", "$free_ram_mb", 1024], True),
    (["and", [">=", "$free_ram_mb", 1024], [">=", "$free_disk_mb", 204800]], True),
    (["and", [">=", "$free_ram_mb", 1024], [">", "$free_disk_mb", 2 ** 40]], False),
    (["or", ["=", "$hypervisor_type", "kvm"], ["=", "$hypervisor_type", "fake"]], True),
    (["not", ["=", "$hypervisor_type", "fake"]], False),
    (["in", "$host", "host1", "host2"], True),
    (["=", "$stats.rack", "r1"], True),
    (["=", "$no_such_attribute", 1], False),
    (["bogus", 1, 2], False),
    ("not json", False),
])
def test_json_filter(query, passes):
    spec = hints(query=query if isinstance(query, str) else json.dumps(query)) \
        if query is not None else builders.request_spec()
    state = builders.host_state(stats={"rack": "r1"})
    assert JsonFilter().host_passes(state, spec) is passes


def test_count_filters_use_their_options(conf):
    state = builders.host_state(num_instances=50, num_io_ops=7)
    assert not NumInstancesFilter().host_passes(state, builders.request_spec())
    assert IoOpsFilter().host_passes(state, builders.request_spec())
    conf.set_override("max_instances_per_host", 51, group="filter_scheduler")
    conf.set_override("max_io_ops_per_host", 7, group="filter_scheduler")
    assert NumInstancesFilter().host_passes(state, builders.request_spec())
    assert not IoOpsFilter().host_passes(state, builders.request_spec())
