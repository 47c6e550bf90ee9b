"""The walking-skeleton scheduler's selection contract, on hand-built host states."""

import random

import pytest

from novalite import context, exception
from novalite.compute import capacity
from novalite.scheduler.fit import FitScheduler
from novalite.scheduler.host_manager import HostManager, HostState
from tests import builders


class StaticHostManager(HostManager):
    def __init__(self, states):
        super().__init__()
        self.states = states

    def get_host_states(self):
        return self.states


def state(host, free_ram=8192, vcpus=16, disk=100, up=True, disabled=False):
    node = builders.node(host)
    return HostState(host=host, nodename=host, uuid=node.uuid, node=node,
                     free=capacity.Resources(vcpus, free_ram, disk), service_up=up,
                     service_disabled=disabled)


def select(states, spec=None, uuids=("i1",), alternates=True):
    scheduler = FitScheduler(StaticHostManager(states))
    return scheduler.select_destinations(context.get_admin_context(),
                                         spec or builders.request_spec(), list(uuids),
                                         alternates)


def test_most_free_ram_wins_and_alternates_follow_in_order(conf):
    result = select([state("a", 2048), state("b", 8192), state("c", 4096), state("d", 1024)])
    assert [s.service_host for s in result[0]] == ["b", "c", "a"]  # max_attempts 3


def test_no_alternates_when_not_asked(conf):
    result = select([state("a"), state("b")], alternates=False)
    assert len(result[0]) == 1


def test_down_disabled_and_full_hosts_are_skipped(conf):
    states = [state("down", up=False), state("off", disabled=True), state("full", 256),
              state("ok", 1024)]
    assert [s.service_host for s in select(states)[0]] == ["ok"]


def test_ignore_and_force_hosts(conf):
    states = [state("a", 9000), state("b", 8000), state("c", 7000)]
    spec = builders.request_spec(ignore_hosts=["a"])
    assert select(states, spec)[0][0].service_host == "b"
    spec = builders.request_spec(force_hosts=["c"])
    assert [s.service_host for s in select(states, spec)[0]] == ["c"]


def test_multi_create_consumes_between_instances(conf):
    states = [state("a", 1200), state("b", 1100)]
    result = select(states, uuids=("i1", "i2"))
    assert [r[0].service_host for r in result] == ["a", "b"]
    assert states[0].free.memory_mb == 1200 - 512


def test_too_few_hosts_for_min_count_raises_and_gives_back(conf):
    states = [state("a", 600)]
    spec = builders.request_spec(min_count=2, num_instances=2)
    with pytest.raises(exception.NoValidHost, match="not enough hosts"):
        select(states, spec, uuids=("i1", "i2"))
    assert states[0].free.memory_mb == 600


def test_fewer_than_requested_but_at_least_min_count_succeeds(conf):
    spec = builders.request_spec(min_count=1, num_instances=3)
    result = select([state("a", 600)], spec, uuids=("i1", "i2", "i3"))
    assert len(result) == 1


def test_host_subset_size_picks_among_the_best(conf):
    conf.set_override("host_subset_size", 2, group="filter_scheduler")
    random.seed(42)
    chosen = {select([state("a", 9000), state("b", 8000), state("c", 100)])[0][0].service_host
              for _ in range(30)}
    assert chosen == {"a", "b"}
