"""Instance queries: guarded transitions and Nova-style soft delete."""

import pytest

from novalite import exception
from novalite.db import session
from novalite.db.api import block_devices, info_caches, instance_details, instance_list, instances
from tests import builders
from tests.statements import statements


def _create(**values):
    inst = builders.instance()
    data = {"uuid": inst.uuid, "display_name": "vm", "project_id": "p1", "user_id": "u1",
            "flavor": builders.flavor(), "vm_state": "building", "task_state": "scheduling",
            **values}
    return instances.instance_create(data, {"role": "web"})


def test_create_and_read_back(db):
    created = _create()
    got = instances.instance_get(created.uuid)
    assert got.flavor.name == "m1.tiny" and got.metadata == {"role": "web"}
    with pytest.raises(exception.InstanceNotFound):
        instances.instance_get(created.uuid, project_id="someone-else")


def test_an_instance_reads_with_its_metadata_and_network_info_in_one_statement(db):
    """Every step of a build reads its instance back: one statement, not one per
    relationship."""
    created = _create()
    vif = {"id": "port-1", "address": "fa:16:3e:00:00:01",
           "network": {"id": "net-1", "label": "private"}}
    info_caches.update(created.uuid, [vif])
    instances.instance_update(created.uuid, {"host": "h1"})
    for read in (lambda: instances.instance_get(created.uuid),
                 lambda: instances.instance_get(created.uuid, project_id="p1"),
                 lambda: instances.instance_get(created.uuid, read_deleted=True)):
        with statements() as seen:
            got = read()
        assert [s for s in seen if s.startswith("SELECT")] == seen[-1:]
        assert got.metadata == {"role": "web"} and got.host == "h1"
        assert [v.id for v in got.network_info] == ["port-1"]
    view = instances.instance_get_view(created.uuid)
    assert view["metadata"] == {"role": "web"} and view["tags"] == []
    assert [v["id"] for v in view["network_info"]] == ["port-1"]


def test_a_servers_view_is_every_column_of_its_row_with_what_it_holds(db):
    """The view a server's GET shows, read as Core rows, holds what the ORM row holds:
    each column, the live metadata, the tags (sorted, as a list shows them), the network
    info and the volumes."""
    created = instances.instance_create(
        {"uuid": builders.instance().uuid, "display_name": "vm", "project_id": "p1",
         "user_id": "u1", "flavor": builders.flavor(), "vm_state": "active"},
        {"role": "web", "tier": "2"}, ["blue", "amber"])
    uuid = created.uuid
    instance_details.metadata_delete(uuid, "tier")  # soft-deleted: not shown
    info_caches.update(uuid, [{"id": "port-1", "address": "fa:16:3e:00:00:01",
                              "network": {"id": "net-1", "label": "private"}}])
    block_devices.bdm_create({"instance_uuid": uuid, "source_type": "volume",
                              "destination_type": "volume", "volume_id": "vol-1",
                              "delete_on_termination": True})
    with session.reader() as s:
        expected = instances.to_view(instances._get_row(s, uuid, None, read_deleted=False))
    view = instances.instance_get_view(uuid, project_id="p1")
    assert view == {**expected, "tags": ["amber", "blue"],
                    "volumes_attached": [("vol-1", True)]}
    assert view["metadata"] == {"role": "web"} and view["network_info"][0]["id"] == "port-1"
    with pytest.raises(exception.InstanceNotFound):
        instances.instance_get_view(uuid, project_id="p2")
    instances.instance_destroy(uuid)
    with pytest.raises(exception.InstanceNotFound):
        instances.instance_get_view(uuid)


def test_the_live_instances_of_many_hosts_in_a_read_per_chunk(db, monkeypatch):
    monkeypatch.setattr(session, "IN_CHUNK", 2)
    on = {host: _create(host=host).uuid for host in ("h1", "h2", "h3")}
    second = _create(host="h1").uuid
    instances.instance_destroy(_create(host="h2").uuid)
    with statements() as seen:
        found = instances.instance_get_all_by_hosts(["h1", "h2", "h3", "h4"])
    assert {host: {i.uuid for i in held} for host, held in found.items()} == {
        "h1": {on["h1"], second}, "h2": {on["h2"]}, "h3": {on["h3"]}}
    assert len([s for s in seen if "instances.host IN" in s]) == 2  # one per chunk
    assert {i.uuid for i in instances.instance_get_all_by_host("h1")} == {on["h1"], second}
    assert instances.instance_get_all_by_host("h4") == []


def test_update_only_from_the_expected_task_state(db):
    inst = _create()
    updated = instances.instance_update(inst.uuid, {"task_state": None, "host": "h1"},
                                        expected_task_state=["scheduling"])
    assert updated.host == "h1" and updated.task_state is None
    with pytest.raises(exception.UnexpectedTaskStateError):
        instances.instance_update(inst.uuid, {"task_state": "spawning"},
                                  expected_task_state=["scheduling"])


def test_guarded_updates_on_each_backend(backend_db):
    """Each shape of guard (task states with or without none, vm states, a host or no
    host) lets the expected instance through and stops any other."""
    inst = _create()
    guarded = instances.instance_update
    got = guarded(inst.uuid, {"task_state": None, "system_metadata": {"a": "b"}},
                  expected_task_state=["scheduling"], expected_vm_state=["building"],
                  expected_host=None)
    assert (got.task_state, got.system_metadata) == (None, {"a": "b"})
    got = guarded(inst.uuid, {"host": "h1", "task_state": "spawning"},
                  expected_task_state=[None, "spawning"])
    assert (got.host, got.task_state) == ("h1", "spawning")
    assert guarded(inst.uuid, {"vm_state": "active"}, expected_host="h1",
                   expected_task_state="spawning").vm_state == "active"
    for guard in ({"expected_host": None}, {"expected_host": "h2"},
                  {"expected_task_state": [None]}, {"expected_vm_state": ["building"]}):
        with pytest.raises(exception.UnexpectedTaskStateError):
            guarded(inst.uuid, {"vm_state": "error"}, **guard)
    with pytest.raises(exception.UnexpectedTaskStateError):  # several values: an IN
        guarded(inst.uuid, {"vm_state": "error"}, expected_task_state=["x", "y"])
    assert guarded(inst.uuid, {"task_state": None}, expected_task_state=["x", "spawning"],
                   expected_vm_state=["building", "active"]).task_state is None
    assert instances.instance_get(inst.uuid).vm_state == "active"
    with pytest.raises(ValueError, match="metadata"):
        guarded(inst.uuid, {"metadata": {}})


def test_a_delete_in_progress_is_reported_as_such(db):
    inst = _create()
    instances.instance_update(inst.uuid, {"task_state": "deleting"})
    with pytest.raises(exception.UnexpectedDeletingTaskStateError):
        instances.instance_update(inst.uuid, {"vm_state": "active"},
                                  expected_task_state=["spawning"])


def test_soft_delete_keeps_the_row_and_hides_it(db):
    inst = _create()
    gone = instances.instance_destroy(inst.uuid)
    assert gone.vm_state == "deleted" and gone.deleted
    with pytest.raises(exception.InstanceNotFound):
        instances.instance_get(inst.uuid)
    assert instances.instance_get(inst.uuid, read_deleted=True).deleted
    listed = instance_list.instance_list(instance_list.ServerFilters(deleted=True), [])
    assert listed[0]["uuid"] == inst.uuid
    with pytest.raises(exception.InstanceNotFound):
        instances.instance_update(inst.uuid, {"task_state": None})


def test_the_deleted_among_some_servers(db):
    live, gone, soft = _create(), _create(), _create(vm_state="soft-delete")
    instances.instance_destroy(gone.uuid)
    found = instances.instance_get_deleted([live.uuid, gone.uuid, soft.uuid, "unknown"])
    assert [i.uuid for i in found] == [gone.uuid] and found[0].deleted_at is not None


def test_an_instance_reads_every_live_metadata_item_and_its_tags_when_asked(db):
    inst = builders.instance()
    instances.instance_create({"uuid": inst.uuid, "display_name": "vm", "project_id": "p1",
                               "user_id": "u1", "flavor": builders.flavor(),
                               "vm_state": "active"}, {"b": "2", "a": "1", "c": ""},
                              ["t2", "t1"])
    got = instances.instance_get(inst.uuid)
    assert got.metadata == {"b": "2", "a": "1", "c": ""} and got.tags == []
    assert instances.instance_update(inst.uuid, {"host": "h1"}, with_tags=True
                                     ).tags == ["t1", "t2"]
    instances.instance_destroy(inst.uuid)  # its metadata is soft-deleted with it
    assert instances.instance_get(inst.uuid, read_deleted=True).metadata == {}


def test_a_soft_delete_on_each_backend(backend_db):
    """The row keeps its id in `deleted`, its metadata goes with it, a termination time
    already set stays, and the uuid may live again (Nova's unique uuid and deleted)."""
    inst = _create(terminated_at=None)
    gone = instances.instance_destroy(inst.uuid)
    assert (gone.vm_state, gone.task_state, gone.deleted, gone.metadata) == (
        "deleted", None, True, {"role": "web"})
    read = instances.instance_get(inst.uuid, read_deleted=True)
    assert (read.vm_state, read.deleted, read.metadata) == ("deleted", True, {})
    again = instances.instance_create({"uuid": inst.uuid, "display_name": "vm",
                                       "project_id": "p1", "user_id": "u1",
                                       "flavor": builders.flavor(), "vm_state": "active"})
    assert (again.deleted, instances.instance_get(inst.uuid).vm_state) == (False, "active")
