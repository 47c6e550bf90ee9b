import pytest

from novalite.scheduler.filters.affinity_filter import (
    ServerGroupAffinityFilter,
    ServerGroupAntiAffinityFilter,
)
from novalite.scheduler.filters.all_hosts_filter import AllHostsFilter
from novalite.scheduler.filters.compute_filter import ComputeFilter
from tests import builders


@pytest.mark.parametrize(("up", "disabled", "passes"), [
    (True, False, True), (False, False, False), (True, True, False)])
def test_compute_filter(up, disabled, passes):
    state = builders.host_state(service_up=up, service_disabled=disabled)
    assert ComputeFilter().host_passes(state, builders.request_spec()) is passes


def test_all_hosts_filter_passes_and_runs_once_per_request():
    flt = AllHostsFilter()
    assert flt.host_passes(builders.host_state(), builders.request_spec())
    assert flt.run_filter_for_index(0) and not flt.run_filter_for_index(1)


def _group(policy, **kw):
    return builders.request_spec(instance_group={"policy": policy, **kw})


@pytest.mark.parametrize(("group", "host", "passes"), [
    (None, "h1", True),
    ({"hosts": []}, "h1", True),
    ({"hosts": ["h1"]}, "h1", True),
    ({"hosts": ["h1"]}, "h2", False),
])
def test_affinity(group, host, passes):
    spec = _group("affinity", **group) if group is not None else builders.request_spec()
    assert ServerGroupAffinityFilter().host_passes(builders.host_state(host), spec) is passes


@pytest.mark.parametrize(("on_host", "rules", "passes"), [
    (set(), {}, True),
    ({"m1"}, {}, False),
    ({"m1"}, {"max_server_per_host": 2}, True),
    ({"m1", "m2"}, {"max_server_per_host": 2}, False),
    ({"other"}, {}, True),
])
def test_anti_affinity(on_host, rules, passes):
    spec = _group("anti-affinity", members=["m1", "m2"], rules=rules)
    state = builders.host_state(instances=on_host)
    assert ServerGroupAntiAffinityFilter().host_passes(state, spec) is passes


def test_anti_affinity_lets_an_instance_stay_on_its_own_host():
    spec = _group("anti-affinity", members=["me", "m1"])
    spec.instance_uuid = "me"
    assert ServerGroupAntiAffinityFilter().host_passes(
        builders.host_state(instances={"me", "m1"}), spec)


def test_other_policies_are_not_these_filters_business():
    spec = _group("soft-affinity", hosts=["elsewhere"])
    assert ServerGroupAffinityFilter().host_passes(builders.host_state(), spec)
