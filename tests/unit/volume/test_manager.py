"""The volume manager on a real database and file backend, called directly (no RPC)."""

import os
import uuid

import pytest

from novalite import context
from novalite.db import session
from novalite.volume import attachments, errors, messages, snapshots, states, volumes
from novalite.volume.manager import VolumeManager
from tests.unit.volume.builders import make_volume


@pytest.fixture
def manager(db):
    made = VolumeManager("host1")
    made.init_host()
    return made


def _status(volume_id: str) -> str:
    with session.reader() as s:
        return volumes.get(s, volume_id, None).status


def test_create_places_the_volume_and_makes_its_file(manager):
    volume_id = make_volume()
    manager.create_volume(context.get_admin_context(), volume_id)
    with session.reader() as s:
        volume = volumes.get(s, volume_id, None)
    assert (volume.status, volume.host) == ("available", "host1@file#file")
    assert os.path.exists(manager.backend.path(volume_id))


def test_a_volume_beyond_free_capacity_is_an_error_with_a_message(manager, conf):
    conf.set_override("volume_backend_capacity_gb", 2)
    placed = make_volume(size=2)
    manager.create_volume(context.get_admin_context(), placed)
    refused = make_volume(size=1)
    manager.create_volume(context.get_admin_context(), refused)
    assert (_status(placed), _status(refused)) == ("available", "error")
    with session.reader() as s:
        (message,) = messages.list_messages(s, "p1")
    assert message.resource_uuid == refused
    assert message.user_message == ("schedule allocate volume:Could not find any available "
                                    "weighted backend.")


def test_a_backend_failure_is_an_error_with_a_message(manager):
    volume_id = make_volume()
    os.rmdir(manager.backend.directory)
    manager.create_volume(context.get_admin_context(), volume_id)
    assert _status(volume_id) == "error"
    with session.reader() as s:
        (message,) = messages.list_messages(s, "p1")
    assert message.event_id == "VOLUME_VOLUME_008_012"


def test_delete_removes_the_file_and_the_row(manager):
    volume_id = make_volume()
    manager.create_volume(context.get_admin_context(), volume_id)
    with session.writer() as s:
        volumes.swap_status(s, volume_id, [states.AVAILABLE], {"status": states.DELETING})
    manager.delete_volume(context.get_admin_context(), volume_id)
    assert not os.path.exists(manager.backend.path(volume_id))
    with session.reader() as s, pytest.raises(errors.VolumeNotFound):
        volumes.get(s, volume_id, None)


def test_start_up_moves_what_a_killed_manager_left_to_error(manager):
    left = {status: make_volume(status, host=manager.backend_host)
            for status in (states.CREATING, states.DELETING, states.EXTENDING,
                           states.AVAILABLE, states.UPLOADING)}
    elsewhere = make_volume(states.CREATING, host="host2@file#file")
    snapshot_id = str(uuid.uuid4())
    with session.writer() as s:
        snapshots.create(s, {"id": snapshot_id, "project_id": "p1", "volume_size": 1,
                             "volume_id": left[states.AVAILABLE], "status": "creating",
                             "snapshot_metadata": {}})
    manager.init_host()
    with session.reader() as s:
        assert snapshots.get_row(s, snapshot_id, None).status == "error"
    assert {status: _status(v) for status, v in left.items()} == {
        "creating": "error", "deleting": "error_deleting", "extending": "error_extending",
        "available": "available", "uploading": "available"}  # an upload: as attached
    assert _status(elsewhere) == "creating"



def test_a_snapshot_is_a_full_copy_and_a_volume_can_be_made_from_it(manager):
    volume_id = make_volume()
    manager.create_volume(context.get_admin_context(), volume_id)
    snapshot_id = str(uuid.uuid4())
    with session.writer() as s:
        snapshots.create(s, {"id": snapshot_id, "project_id": "p1", "volume_id": volume_id,
                             "volume_size": 1, "status": snapshots.CREATING,
                             "snapshot_metadata": {}})
    manager.create_snapshot(context.get_admin_context(), snapshot_id)
    with session.reader() as s:
        assert snapshots.get_row(s, snapshot_id, None).status == "available"
    assert os.path.exists(manager.backend.snapshot_path(snapshot_id))
    manager.backend.delete(volume_id)  # the snapshot needs nothing of its volume
    copy = make_volume(size=2)
    with session.writer() as s:
        volumes.get_row(s, copy, None).snapshot_id = snapshot_id
    manager.create_volume(context.get_admin_context(), copy)
    assert _status(copy) == "available"
    manager.delete_snapshot(context.get_admin_context(), snapshot_id)
    assert not os.path.exists(manager.backend.snapshot_path(snapshot_id))


def test_extend_beyond_free_capacity_leaves_the_volume_as_it_was(manager, conf):
    conf.set_override("volume_backend_capacity_gb", 2)
    volume_id = make_volume()
    manager.create_volume(context.get_admin_context(), volume_id)
    with session.writer() as s:
        volumes.swap_status(s, volume_id, [states.AVAILABLE], {"status": states.EXTENDING})
    manager.extend_volume(context.get_admin_context(), volume_id, 3)
    with session.reader() as s:
        volume = volumes.get(s, volume_id, None)
        (message,) = messages.list_messages(s, "p1")
    assert (volume.status, volume.size) == ("available", 1)
    assert message.user_message == ("extend volume:Could not find any available weighted "
                                    "backend.")


CONNECTOR = {"host": "compute1", "ip": "127.0.0.1", "mountpoint": "/dev/vdb"}


@pytest.fixture
def attached(manager):
    """A volume of this backend, exported to a connector (attaching)."""
    volume_id = make_volume()
    manager.create_volume(context.get_admin_context(), volume_id)
    with session.writer() as s:
        volumes.swap_status(s, volume_id, [states.AVAILABLE], {"status": states.RESERVED})
        attachment_id = attachments.create(s, volume_id, "server-1", "null")
    connection = manager.attachment_update(context.get_admin_context(), volume_id,
                                           attachment_id, CONNECTOR)
    yield volume_id, attachment_id, connection
    for leftover in manager.exports.known():
        manager.exports.stop(leftover)


def test_update_exports_the_volume_once_and_records_the_connection(manager, attached):
    volume_id, attachment_id, connection = attached
    data = connection["data"]
    assert connection["driver_volume_type"] == "nbd"
    assert (data["host"], data["export"], data["name"], data["access_mode"]) == (
        "127.0.0.1", volume_id, volume_id, "rw")
    assert manager.exports.running(attachment_id)
    with session.reader() as s:
        found = attachments.get(s, attachment_id, None)
    assert (found.status, found.attached_host, found.mountpoint, found.attach_mode) == (
        "attaching", "compute1", "/dev/vdb", "rw")
    assert found.connection_info == {"driver_volume_type": "nbd", **data,
                                     "attachment_id": attachment_id}
    assert _status(volume_id) == "attaching"
    retried = manager.attachment_update(context.get_admin_context(), volume_id,
                                        attachment_id, CONNECTOR)
    assert retried == connection  # the same export, not a second one
    manager.attachment_delete(context.get_admin_context(), attachment_id)
    assert not manager.exports.running(attachment_id)


def test_start_up_recovers_the_attachments(manager, attached):
    volume_id, attachment_id, connection = attached
    with session.writer() as s:
        attachments.change(s, attachment_id, {"attach_status": "attached"})
        volumes.get_row(s, volume_id, None).status = states.DETACHING  # a detach never came
    manager.exports.stop(attachment_id)  # the machine rebooted
    orphan = make_volume()
    manager.create_volume(context.get_admin_context(), orphan)
    manager.exports.start("gone", manager.backend.path(orphan), orphan, read_only=True)
    leaving = make_volume()
    manager.create_volume(context.get_admin_context(), leaving)
    with session.writer() as s:
        detaching = attachments.create(s, leaving, "server-2", "rw")
        attachments.change(s, detaching, {"attach_status": "detaching"})
        attachments.settle(s, leaving)

    manager.init_host()
    assert manager.exports.running(attachment_id)  # again, where its client connects
    assert manager.exports.known() == [attachment_id]
    with session.reader() as s:
        assert attachments.get(s, attachment_id, None).connection_info["port"] == \
            connection["data"]["port"]
        assert attachments.of_volumes(s, [leaving]) == {}
    assert (_status(volume_id), _status(leaving)) == ("in-use", "available")


def test_a_second_attachment_of_the_consumer_shares_the_export_and_keeps_it(manager,
                                                                            attached):
    volume_id, first, connection = attached
    ctx = context.get_admin_context()
    with session.writer() as s:
        second = attachments.create(s, volume_id, "server-1", "null")
    shared = manager.attachment_update(ctx, volume_id, second,
                                       {**CONNECTOR, "host": "compute2"})
    assert shared == connection  # one qemu-nbd: a qcow2 has one writer
    assert manager.exports.known() == [first]
    assert "--shared=2" in _cmdline(manager, first)  # the live migration's two QEMUs
    manager.exports.stop(first)  # the machine rebooted: one export started again
    manager.init_host()
    assert manager.exports.known() == [first] and manager.exports.running(first)

    manager.attachment_delete(ctx, first)  # the source lets go: the export stays
    with session.writer() as s:
        attachments.remove(s, first)
    assert manager.exports.known() == [second] and manager.exports.running(second)
    manager.exports.stop(second)  # the machine rebooted: started again once, on its port
    manager.init_host()
    assert manager.exports.known() == [second] and manager.exports.running(second)
    manager.attachment_delete(ctx, second)
    assert manager.exports.known() == []


def _cmdline(manager, attachment_id: str) -> list[str]:
    with open(manager.exports._file(attachment_id, "pid")) as pidfile:
        pid = int(pidfile.read())
    with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
        return cmdline.read().decode().split("\0")


def test_the_servers_of_a_multiattach_volume_share_one_export_until_the_last_goes(
        manager):
    ctx = context.get_admin_context()
    volume_id = make_volume(multiattach=True)
    manager.create_volume(ctx, volume_id)
    with session.writer() as s:
        first = attachments.create(s, volume_id, "server-1", "null")
        second = attachments.create(s, volume_id, "server-2", "ro")
    try:
        one = manager.attachment_update(ctx, volume_id, first, CONNECTOR)
        other = manager.attachment_update(ctx, volume_id, second,
                                          {**CONNECTOR, "host": "compute2"})
        assert manager.exports.known() == [first]
        argv = _cmdline(manager, first)
        assert "--shared=0" in argv and "--read-only" not in argv  # both guests connect
        assert (one["data"]["port"], one["data"]["access_mode"]) == (
            other["data"]["port"], "rw")
        assert other["data"]["access_mode"] == "ro"  # its guest's QEMU opens it read-only
        manager.attachment_delete(ctx, first)
        with session.writer() as s:
            attachments.remove(s, first)
        assert manager.exports.known() == [second] and manager.exports.running(second)
        manager.attachment_delete(ctx, second)
        assert manager.exports.known() == []
    finally:
        for leftover in manager.exports.known():
            manager.exports.stop(leftover)
