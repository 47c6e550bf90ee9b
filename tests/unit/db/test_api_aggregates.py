"""Aggregates in the database: every writer, its conflicts, its guard, and the marker
that tells the schedulers to re-read (on SQLite, PostgreSQL and MariaDB)."""

import threading
import time

import pytest

from novalite import exception
from novalite.compute import aggregates as rules
from novalite.db import migration
from novalite.db.api import aggregates, instances, services
from tests import builders


@pytest.fixture
def any_db(conf, backend_url):
    conf.set_override("connection", backend_url, group="database")
    migration.db_sync()


def test_create_get_and_list(any_db):
    created = aggregates.aggregate_create("rack1", {"availability_zone": "az1"}, ["h1"])
    got = aggregates.aggregate_get(created.id)
    assert got == created
    assert got.hosts == ["h1"] and got.metadata == {"availability_zone": "az1"}
    assert [a.name for a in aggregates.aggregate_get_all()] == ["rack1"]
    with pytest.raises(exception.AggregateNotFound, match="Aggregate 999 could not be found"):
        aggregates.aggregate_get(999)


def test_duplicate_names_conflict_on_create_and_rename(any_db):
    aggregates.aggregate_create("rack1")
    second = aggregates.aggregate_create("rack2")
    with pytest.raises(exception.AggregateNameExists, match="Aggregate rack1 already exists"):
        aggregates.aggregate_create("rack1")
    with pytest.raises(exception.AggregateNameExists):
        aggregates.aggregate_update(second.id, name="rack1")
    assert aggregates.aggregate_get(second.id).name == "rack2"


def test_update_sets_and_deletes_metadata_and_stamps_updated_at(any_db):
    agg = aggregates.aggregate_create("rack1", {"a": "1", "b": "2"})
    assert agg.updated_at is None
    updated = aggregates.aggregate_update(agg.id, name="rack9",
                                          metadata={"a": "10", "b": None, "c": "3",
                                                    "absent": None})
    assert updated.name == "rack9" and updated.metadata == {"a": "10", "c": "3"}
    assert updated.updated_at is not None
    assert aggregates.aggregate_get(agg.id) == updated


def test_hosts_join_once_and_leave(any_db):
    agg = aggregates.aggregate_create("rack1")
    assert aggregates.aggregate_add_host(agg.id, "h2").hosts == ["h2"]
    assert aggregates.aggregate_add_host(agg.id, "h1").hosts == ["h1", "h2"]
    with pytest.raises(exception.AggregateHostExists,
                       match=f"Aggregate {agg.id} already has host h1"):
        aggregates.aggregate_add_host(agg.id, "h1")
    assert aggregates.aggregate_remove_host(agg.id, "h1").hosts == ["h2"]
    with pytest.raises(exception.AggregateHostNotFound):
        aggregates.aggregate_remove_host(agg.id, "h1")
    with pytest.raises(exception.AggregateNotFound):
        aggregates.aggregate_add_host(agg.id + 1, "h1")


def test_only_an_empty_aggregate_is_deleted(any_db):
    agg = aggregates.aggregate_create("rack1", {"k": "v"}, ["h1"])
    with pytest.raises(exception.InvalidAggregateActionDelete,
                       match="Reason: Host aggregate is not empty"):
        aggregates.aggregate_delete(agg.id)
    aggregates.aggregate_remove_host(agg.id, "h1")
    aggregates.aggregate_delete(agg.id)
    assert aggregates.aggregate_get_all() == []
    with pytest.raises(exception.AggregateNotFound):
        aggregates.aggregate_delete(agg.id)


def test_a_refusing_guard_leaves_everything_as_it_was(any_db):
    agg = aggregates.aggregate_create("rack1", {"k": "v"})

    def refuse(snap):
        assert snap.aggregate.name == "rack1"
        raise exception.InvalidAggregateActionUpdate(aggregate_id=agg.id, reason="no")

    with pytest.raises(exception.InvalidAggregateActionUpdate):
        aggregates.aggregate_update(agg.id, name="other", metadata={"k": None},
                                    guard=refuse)
    assert aggregates.aggregate_get(agg.id) == agg


def test_the_snapshot_reads_zones_and_instances_of_hosts(any_db):
    zoned = aggregates.aggregate_create("z", {"availability_zone": "az1"}, ["h1", "h2"])
    aggregates.aggregate_create("plain", {"ssd": "true"}, ["h1"])
    target = aggregates.aggregate_create("target")
    instances.instance_create({"uuid": "i-1", "host": "h2", "project_id": "p",
                               "user_id": "u", "flavor": builders.flavor()})
    seen = {}

    def look(snap):
        seen["zoned"] = [a.id for a in snap.zoned_aggregates(["h1", "h3"])]
        seen["count"] = (snap.instance_count(["h1"]), snap.instance_count(["h1", "h2"]))

    aggregates.aggregate_update(target.id, guard=look)
    assert seen == {"zoned": [zoned.id], "count": (0, 1)}


def _marker_moves(change, backend_url: str) -> bool:
    before = aggregates.aggregates_marker()
    time.sleep(1.05 if backend_url.startswith("mysql") else 0.01)  # MariaDB keeps seconds
    change()
    return aggregates.aggregates_marker() != before


def test_every_change_moves_the_marker(any_db, backend_url):
    agg = aggregates.aggregate_create("rack1", {"k": "v"}, ["h1"])
    agg_id = agg.id
    assert _marker_moves(lambda: aggregates.aggregate_update(agg_id, name="rack2"),
                         backend_url)
    assert _marker_moves(lambda: aggregates.aggregate_update(agg_id, metadata={"k": "w"}),
                         backend_url)
    assert _marker_moves(lambda: aggregates.aggregate_update(agg_id, metadata={"k": None}),
                         backend_url)
    assert _marker_moves(lambda: aggregates.aggregate_add_host(agg_id, "h2"),
                         backend_url)
    assert _marker_moves(lambda: aggregates.aggregate_remove_host(agg_id, "h1"),
                         backend_url)
    # a host leaving and another joining between two looks: same count, newer row
    before = aggregates.aggregates_marker()
    aggregates.aggregate_remove_host(agg_id, "h2")
    aggregates.aggregate_add_host(agg_id, "h3")
    assert aggregates.aggregates_marker() != before
    aggregates.aggregate_remove_host(agg_id, "h3")
    assert _marker_moves(lambda: aggregates.aggregate_delete(agg_id),
                         backend_url)


def test_racing_adds_of_one_host_to_two_zones_let_only_one_through(any_db):
    """The zone check and the insert are one transaction holding the host's service row:
    the second request waits, then sees the first one's zone."""
    services.service_get_or_create("h1", "novalite-compute", "compute")
    ids = [aggregates.aggregate_create(f"rack{z}", {"availability_zone": f"az{z}"}).id
           for z in (1, 2)]
    outcomes = []

    def add(aggregate_id):
        check = rules._add_guard("h1")

        def slow_guard(snap):
            check(snap)
            time.sleep(0.3)  # without the lock, the other request would pass meanwhile

        try:
            aggregates.aggregate_add_host(aggregate_id, "h1", guard=slow_guard)
            outcomes.append("added")
        except exception.InvalidAggregateActionAdd as exc:
            outcomes.append(exc.format_message())

    threads = [threading.Thread(target=add, args=(i,)) for i in ids]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    refused = [o for o in outcomes if o != "added"]
    assert len(outcomes) == 2 and len(refused) == 1
    assert "One or more hosts already in availability zone(s) ['az" in refused[0]
