"""Compute node records on each backend: the bulk reads (JSON columns read as text and
decoded in Python) give back what was saved, empty collections for empty columns."""

import datetime

from sqlalchemy import delete, select, update

from novalite.db import models, session
from novalite.db.api import compute_nodes
from novalite.db.session import reader
from novalite.objects.compute_node import ComputeNode
from tests.statements import sqlite_plan, statements


def _node(name: str, **fields) -> ComputeNode:
    return ComputeNode(uuid=f"uuid-{name}", host=name, hypervisor_hostname=name,
                       hypervisor_type="fake", hypervisor_version=1000, vcpus=8,
                       memory_mb=16384, local_gb=100, **fields)


FULL = dict(
    supported_instances=[["x86_64", "qemu", "hvm"]], stats={"failed_builds": "2"},
    metrics=[{"name": "cpu.percent", "value": 0.5, "source": "fake"}],
    numa_topology={"cells": [{"id": 0, "cpuset": [0, 1], "memory": 1024}]},
    pci_stats=[{"vendor_id": "8086", "product_id": "1520", "count": 2}],
    cpu_info='{"arch": "x86_64"}')


def _same(read: ComputeNode, saved: ComputeNode) -> bool:
    return {**read.fields(), "updated_at": None, "id": None} == \
        {**saved.fields(), "updated_at": None, "id": None}


def test_bulk_reads_give_back_the_json_columns_as_saved(backend_db):
    full, empty = _node("full", **FULL), _node("empty")
    for node in (full, empty):
        compute_nodes.compute_node_save(node)
    by_uuid = {n.uuid: n for n in compute_nodes.compute_node_get_all()}
    assert _same(by_uuid[full.uuid], full) and _same(by_uuid[empty.uuid], empty)
    assert by_uuid[empty.uuid].stats == {} and by_uuid[empty.uuid].metrics == []
    assert by_uuid[empty.uuid].numa_topology is None
    changed, gone = compute_nodes.compute_node_get_changed(
        datetime.datetime(2000, 1, 1))
    assert sorted(n.uuid for n in changed) == sorted(by_uuid) and gone == []
    assert _same(compute_nodes.compute_node_get_by_host("full")[0], full)


def test_bulk_reads_give_each_node_its_id_and_last_write(backend_db):
    """Read by position: the id, then the update time or, never updated, the creation's."""
    second = datetime.timedelta(seconds=1)  # MariaDB keeps whole seconds
    created = compute_nodes.compute_node_save(_node("h1"))
    [read] = compute_nodes.compute_node_get_all()
    assert read.id == created.id and abs(read.updated_at - created.updated_at) < second
    updated = compute_nodes.compute_node_save(_node("h1", vcpus_used=3))
    [read], _ = compute_nodes.compute_node_get_changed(datetime.datetime(2000, 1, 1))
    assert read.id == created.id and abs(read.updated_at - updated.updated_at) < second


def test_nodes_of_one_read_share_no_values(backend_db):
    for name in ("a", "b"):
        compute_nodes.compute_node_save(_node(name, **FULL))
    a, b = compute_nodes.compute_node_get_all()
    assert a.stats is not b.stats and a.supported_instances is not b.supported_instances



def test_a_save_creates_then_updates_the_node_of_its_uuid(backend_db):
    created = compute_nodes.compute_node_save(_node("h1", **FULL), service_id=7)
    assert _same(created, _node("h1", **FULL)) and created.id is not None
    used = _node("h1", **{**FULL, "vcpus_used": 3, "memory_mb_used": 2048})
    updated = compute_nodes.compute_node_save(used)  # no service: it keeps its own
    assert (updated.id, updated.vcpus_used) == (created.id, 3)
    read = compute_nodes.compute_node_get(created.id)
    saved_at = created.updated_at.replace(microsecond=0)  # as MariaDB keeps it
    assert _same(read, used) and read.updated_at >= saved_at
    changed, _ = compute_nodes.compute_node_get_changed(saved_at)
    assert [n.memory_mb_used for n in changed] == [2048]
    compute_nodes.compute_node_save(used, service_id=8)
    with reader() as s:
        service_ids = s.execute(select(models.ComputeNode.service_id)).scalars().all()
    assert service_ids == [8]
    assert compute_nodes.compute_node_save(_node("h2")).stats == {}


def test_many_nodes_are_saved_in_one_call_new_and_known_alike(backend_db, monkeypatch):
    monkeypatch.setattr(session, "IN_CHUNK", 2)
    known = compute_nodes.compute_node_save(_node("h1"), service_id=1)
    saved = compute_nodes.compute_node_save_many(
        [(_node("h1", vcpus_used=2), None), (_node("h2"), 2), (_node("h3", **FULL), 3)])
    assert [n.host for n in saved] == ["h1", "h2", "h3"] and saved[0].id == known.id
    by_host = {n.host: n for n in compute_nodes.compute_node_get_all()}
    assert by_host["h1"].vcpus_used == 2 and _same(by_host["h3"], _node("h3", **FULL))
    with reader() as s:
        service_ids = dict(s.execute(select(models.ComputeNode.host,
                                            models.ComputeNode.service_id)).all())
    assert service_ids == {"h1": 1, "h2": 2, "h3": 3}


def test_a_node_that_knows_its_id_is_updated_without_a_lookup(backend_db):
    """What a compute saves on each claim carries the id its first save gave it; a row
    purged since is made again."""
    created = compute_nodes.compute_node_save(_node("h1"), service_id=7)
    with statements() as seen:
        compute_nodes.compute_node_save(_node("h1", vcpus_used=2, id=created.id))
    assert [q.split()[0] for q in seen if not q.startswith("BEGIN")] == ["UPDATE"]
    assert compute_nodes.compute_node_get(created.id).vcpus_used == 2
    with session.writer() as s:
        s.execute(delete(models.ComputeNode))
    again = compute_nodes.compute_node_save(_node("h1", vcpus_used=3, id=created.id))
    assert [(n.id, n.vcpus_used) for n in compute_nodes.compute_node_get_all()] == [
        (again.id, 3)]


def test_a_changed_read_leaves_out_the_rows_already_read(backend_db):
    """The scheduler re-reads a margin of the past: rows it read before, unchanged, are
    not decoded again; a row written since is, and a deleted node is forgotten."""
    first = compute_nodes.compute_node_save(_node("h1"))
    compute_nodes.compute_node_save(_node("h2"))
    since = first.updated_at.replace(microsecond=0) - datetime.timedelta(seconds=1)
    known: dict = {}
    changed, _ = compute_nodes.compute_node_get_changed(since, known)
    assert sorted(n.host for n in changed) == ["h1", "h2"] and set(known) == {
        "uuid-h1", "uuid-h2"}
    assert compute_nodes.compute_node_get_changed(since, known) == ([], [])
    compute_nodes.compute_node_save(_node("h2", vcpus_used=4))
    changed, _ = compute_nodes.compute_node_get_changed(since, known)
    assert [(n.host, n.vcpus_used) for n in changed] == [("h2", 4)]
    with session.writer() as s:
        s.execute(update(models.ComputeNode).where(models.ComputeNode.host == "h1")
                  .values(deleted=models.ComputeNode.id, deleted_at=first.updated_at))
    assert compute_nodes.compute_node_get_changed(since, known) == ([], ["uuid-h1"])
    assert set(known) == {"uuid-h2"}


def test_a_changed_read_finds_a_row_stamped_after_its_moment_in_the_same_second(
        backend_db):
    """MariaDB keeps a stamp's whole seconds only: a node stamped at .7 of a second is
    stored at .0, and a read of what changed since .5 of that second must find it."""
    compute_nodes.compute_node_save(_node("h1"))
    second = datetime.datetime(2030, 1, 1, 12, 0, 0)
    with session.writer() as s:
        s.execute(update(models.ComputeNode).values(
            updated_at=second.replace(microsecond=700_000)))
    changed, _ = compute_nodes.compute_node_get_changed(second.replace(microsecond=500_000))
    assert [n.host for n in changed] == ["h1"]


def test_a_changed_read_searches_the_stamps_rather_than_every_node(db):
    """SQLite's plan for the refresh's read: at 10,000 nodes a scan of every row cost
    each scheduling decision 2 ms of CPU, to find a handful."""
    plan = sqlite_plan(db, compute_nodes._CHANGED, {"since": datetime.datetime(2000, 1, 1)})
    for stamp in ("updated_at", "created_at", "deleted_at"):
        assert f"USING INDEX ix_compute_nodes_{stamp}" in plan, plan
    assert "SCAN compute_nodes" not in plan, plan


def test_a_changed_read_gives_the_nodes_in_id_order(backend_db):
    for name in ("c", "a", "b"):
        compute_nodes.compute_node_save(_node(name))
    changed, _ = compute_nodes.compute_node_get_changed(datetime.datetime(2000, 1, 1))
    assert [n.host for n in changed] == ["c", "a", "b"]
