"""Nova's zone rules for aggregates, on a snapshot built in memory."""

import pytest

from novalite import exception
from novalite.compute import aggregates as rules
from tests import builders


class FakeSnapshot:
    def __init__(self, aggregate, others=(), instances=None):
        self.aggregate = aggregate
        self._all = [aggregate, *others]
        self._instances = instances or {}

    def zoned_aggregates(self, hosts):
        return [a for a in self._all if a.availability_zone is not None
                and set(a.hosts) & set(hosts)]

    def instance_count(self, hosts):
        return sum(self._instances.get(h, 0) for h in hosts)


def _agg(id_, zone=None, hosts=()):
    return builders.aggregate(id_, hosts=list(hosts),
                              metadata={"availability_zone": zone} if zone else {})


def test_a_host_may_not_join_a_second_zone():
    snap = FakeSnapshot(_agg(2, "az2"), [_agg(1, "az1", ["h1"])])
    with pytest.raises(exception.InvalidAggregateActionAdd, match=r"zone\(s\) \['az1'\]"):
        rules._add_guard("h1")(snap)
    rules._add_guard("h2")(snap)
    rules._add_guard("h1")(FakeSnapshot(_agg(2), [_agg(1, "az1", ["h1"])]))  # no zone


def test_a_host_with_instances_may_not_move_zone_by_joining_or_leaving():
    joining = FakeSnapshot(_agg(1, "az1"), instances={"h1": 2})
    with pytest.raises(exception.InvalidAggregateActionAdd,
                       match="from 'None' to 'az1' but the host already has 2 instance"):
        rules._add_guard("h1")(joining)
    leaving = FakeSnapshot(_agg(1, "az1", ["h1"]), instances={"h1": 1})
    with pytest.raises(exception.InvalidAggregateActionDelete,
                       match="from 'az1' to 'None'"):
        rules._remove_guard("h1")(leaving)
    staying = FakeSnapshot(_agg(1, "az1", ["h1"]), [_agg(2, "az1", ["h1"])], {"h1": 1})
    rules._remove_guard("h1")(staying)  # another aggregate keeps it in az1


def test_renaming_a_zone_is_refused_only_where_instances_run():
    guard = rules._zone_change_guard({"availability_zone": "new"},
                                     exception.InvalidAggregateActionUpdate,
                                     check_instances=True)
    guard(FakeSnapshot(_agg(1, "old", ["h1"])))
    with pytest.raises(exception.InvalidAggregateActionUpdate,
                       match="One or more hosts contain instances in this zone"):
        guard(FakeSnapshot(_agg(1, "old", ["h1"]), instances={"h1": 1}))
    empty = rules._zone_change_guard({"availability_zone": None},
                                     exception.InvalidAggregateActionUpdateMeta)
    with pytest.raises(exception.InvalidAggregateActionUpdateMeta,
                       match="Aggregate agg1 does not support empty named availability zone"):
        empty(FakeSnapshot(_agg(1)))
