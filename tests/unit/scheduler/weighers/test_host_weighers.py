from novalite.scheduler.weighers import weigh_hosts
from novalite.scheduler.weighers.host_weighers import (
    HypervisorVersionWeigher,
    IoOpsWeigher,
    NumInstancesWeigher,
    ServerGroupSoftAffinityWeigher,
    ServerGroupSoftAntiAffinityWeigher,
)
from tests import builders


def order(weigher, hosts, spec=None):
    return [w.host_state.host for w in weigh_hosts([weigher], hosts,
                                                   spec or builders.request_spec())]


def test_io_ops_weigher_avoids_busy_hosts_by_default(conf):
    hosts = [builders.host_state("busy", num_io_ops=5), builders.host_state("idle")]
    assert order(IoOpsWeigher(), hosts) == ["idle", "busy"]


def test_num_instances_weigher_is_off_until_given_a_multiplier(conf):
    hosts = [builders.host_state("full", num_instances=9), builders.host_state("empty")]
    assert weigh_hosts([NumInstancesWeigher()], hosts, builders.request_spec())[0].weight == 0
    conf.set_override("num_instances_weight_multiplier", -1.0, group="filter_scheduler")
    assert order(NumInstancesWeigher(), hosts) == ["empty", "full"]


def test_hypervisor_version_weigher_prefers_newer(conf):
    hosts = [builders.host_state("old", hypervisor_version=1),
             builders.host_state("new", hypervisor_version=9)]
    assert order(HypervisorVersionWeigher(), hosts) == ["new", "old"]


def test_soft_group_weighers(conf):
    hosts = [builders.host_state("with", instances={"m1", "m2"}),
             builders.host_state("without")]
    soft = builders.request_spec(instance_group={"policy": "soft-affinity",
                                                 "members": ["m1", "m2"]})
    anti = builders.request_spec(instance_group={"policy": "soft-anti-affinity",
                                                 "members": ["m1", "m2"]})
    assert order(ServerGroupSoftAffinityWeigher(), hosts, soft) == ["with", "without"]
    assert order(ServerGroupSoftAntiAffinityWeigher(), hosts, anti) == ["without", "with"]
    assert not ServerGroupSoftAffinityWeigher().needs_instances(anti)
