"""The host table mirrors its host states: rows, columns, classes and aggregate caches."""

import numpy as np

from novalite.scheduler.host_table import HostTable
from tests import builders


def _table(*hosts, **kw):
    table = HostTable(capacity=1)
    for host in hosts:
        table.add(builders.host_state(host, uuid=f"node-{host}", **kw))
    return table


def test_setting_a_field_of_a_bound_state_writes_its_column():
    table = _table("a", "b", "c")
    table.states[1].free_ram_mb = 7
    table.states[2].consume_from_request(builders.request_spec())
    assert table.column("free_ram_mb").tolist() == [65024, 7, 65024 - 512]
    assert table.column("num_instances").tolist() == [0, 0, 1]


def test_removing_a_row_moves_the_last_one_into_the_gap():
    table = _table("a", "b", "c")
    gone = table.states[0]
    table.remove("node-a")
    assert [s.host for s in table.states] == ["c", "b"]
    assert table.row_of == {"node-c": 0, "node-b": 1}
    gone.free_ram_mb = 1  # no longer mirrored
    table.states[0].free_ram_mb = 3
    assert table.column("free_ram_mb").tolist() == [3, 65024]
    assert table.rows_named(["c"]).tolist() == [True, False]


def test_the_instance_index_follows_assignments_removals_and_moved_rows():
    table = _table("a", "b", "c")
    table.states[0].instances = {"i1", "i2"}
    table.states[2].instances = {"i2"}
    assert table.rows_holding(["i1", "i2", "x"]).tolist() == [2, 0, 1]
    table.states[0].instances = {"i2"}  # replaced: i1 left the host
    assert table.rows_holding(["i1"]).tolist() == [0, 0, 0]
    table.remove("node-a")  # c moves into row 0
    assert table.rows_holding(["i2"]).tolist() == [1, 0]
    table.add(builders.host_state("d", uuid="node-d", instances={"i1"}))
    table.states[0].instances = set()
    assert table.rows_holding(["i1", "i2"]).tolist() == [0, 0, 1]


def test_adding_a_known_node_replaces_its_state():
    table = _table("a", "b")
    table.add(builders.host_state("a", uuid="node-a", memory_mb_used=1000))
    assert len(table) == 2
    assert table.states[table.row_of["node-a"]].free_ram_mb == 64024


def test_a_question_per_class_is_asked_once_per_hypervisor_class():
    table = _table("a", "b", "c")
    table.states[2].hypervisor_type = "qemu"  # a new class
    asked = []

    def answer(state):
        asked.append(state.hypervisor_type)
        return state.hypervisor_type == "qemu"

    assert table.per_class(np.arange(3), answer).tolist() == [False, False, True]
    assert sorted(asked) == ["fake", "qemu"]


def test_aggregate_values_are_cached_until_aggregates_change():
    table = _table("a", "b")
    table.states[0].aggregates = [builders.aggregate(1, metadata={"ram_weight_multiplier": "2"})]
    assert table.aggregate_min("ram_weight_multiplier", 1.0).tolist() == [2.0, 1.0]
    table.states[1].aggregates = [builders.aggregate(2, metadata={"ram_weight_multiplier": "-1"})]
    assert table.aggregate_min("ram_weight_multiplier", 1.0).tolist() == [2.0, -1.0]


def test_nodes_coming_and_going_keep_the_aggregate_answers_without_asking_again():
    """A refresh replaces a changed node's state: only a set of aggregate metadata not
    seen before is asked about, not every host again (15 ms at 10,000 hosts)."""
    double = builders.aggregate(1, metadata={"ram_weight_multiplier": "2"})
    table = _table("a", "b", "c")
    table.states[0].aggregates = [double]
    asked = []

    def answer(state):
        asked.append(state.host)
        return state.aggregates == [double]

    def doubled():
        return table.per_aggregate_set(np.arange(len(table)), answer, key="doubled").tolist()

    assert doubled() == [True, False, False]
    assert len(asked) == 2
    table.add(builders.host_state("b", uuid="node-b", aggregates=[double]))  # a, c, b
    table.remove("node-a")  # b moves into row 0
    assert doubled() == [True, False]
    assert len(asked) == 2
    halved = builders.aggregate(2, metadata={"ram_weight_multiplier": "0.5"})
    table.add(builders.host_state("d", uuid="node-d", aggregates=[halved]))
    assert doubled() == [True, False, False]
    assert asked[2:] == ["d"]
    assert table.aggregate_min("ram_weight_multiplier", 1.0).tolist() == [2.0, 1.0, 0.5]


def test_extending_by_many_states_is_adding_them_one_by_one():
    def states():
        return [builders.host_state(h, uuid=f"node-{h}", memory_mb_used=i * 100,
                                    instances={f"i-{h}"}, hypervisor_type=t)
                for i, (h, t) in enumerate([("a", "qemu"), ("b", "fake"), ("c", "qemu")])]

    one_by_one, at_once = _table("x"), _table("x")
    for state in states():
        one_by_one.add(state)
    at_once.extend(states())
    assert at_once.row_of == one_by_one.row_of
    for name in ("free_ram_mb", "service_up", "failed_builds", "num_instances"):
        assert at_once.column(name).tolist() == one_by_one.column(name).tolist()
    assert at_once._class[:4].tolist() == one_by_one._class[:4].tolist()
    assert at_once.rows_holding(["i-b", "i-c"]).tolist() == [0, 0, 1, 1]
    at_once.states[3].free_ram_mb = 5  # bound: mirrored
    assert at_once.column("free_ram_mb")[3] == 5


def test_extending_by_states_of_known_nodes_replaces_them():
    table = _table("a", "b")
    table.extend([builders.host_state("b", uuid="node-b", memory_mb_used=1000),
                  builders.host_state("c", uuid="node-c")])
    assert len(table) == 3
    assert table.states[table.row_of["node-b"]].free_ram_mb == 64024
    assert table.column("free_ram_mb").tolist() == [65024, 64024, 65024]
