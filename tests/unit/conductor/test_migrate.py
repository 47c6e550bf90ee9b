"""The request spec a move asks the scheduler with (novalite.conductor.tasks.migrate)."""

from novalite.conductor.tasks.migrate import move_spec
from novalite.objects.request_spec import InstanceGroup, RequestSpec
from tests import builders


def _spec():
    return RequestSpec(instance_uuid="old", flavor=builders.flavor(), num_instances=3,
                       min_count=2, force_hosts=["h9"], availability_zone="az1",
                       instance_group=InstanceGroup(uuid="g", policy="anti-affinity"))


def test_a_resize_asks_for_the_new_flavor_away_from_its_host(conf):
    instance = builders.instance(host="h1")
    big = builders.flavor(flavorid="2", memory_mb=2048)
    spec = move_spec(_spec(), instance, big, None, "resize")
    assert (spec.instance_uuid, spec.flavor, spec.num_instances, spec.min_count) == (
        instance.uuid, big, 1, 1)
    assert (spec.ignore_hosts, spec.force_hosts, spec.requested_destination) == (
        ["h1"], [], None)
    assert spec.availability_zone == "az1"
    assert spec.instance_group is not None and spec.instance_group.policy == "anti-affinity"


def test_allow_resize_to_same_host_keeps_the_host_for_resizes_only(conf):
    conf.set_override("allow_resize_to_same_host", True)
    instance = builders.instance(host="h1")
    assert move_spec(_spec(), instance, builders.flavor(), None, "resize").ignore_hosts == []
    assert move_spec(_spec(), instance, builders.flavor(), None,
                     "migration").ignore_hosts == ["h1"]


def test_a_named_host_becomes_the_requested_destination(conf):
    spec = move_spec(_spec(), builders.instance(host="h1"), builders.flavor(), "h2",
                     "migration")
    assert spec.requested_destination is not None
    assert spec.requested_destination.host == "h2"
