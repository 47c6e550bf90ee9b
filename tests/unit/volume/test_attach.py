"""The attach requests' checks and roll-backs, on a real database (the manager's RPC
replaced where a test says so)."""

import pytest

from novalite import context
from novalite.db import session
from novalite.rpc.errors import MessagingTimeout
from novalite.volume import attach, attachments, errors, states, volumes
from tests.unit.volume.builders import make_volume


@pytest.fixture
def ctx(db):
    return context.RequestContext(project_id="p1", user_id="u1")


def _allowed(rule: str) -> None:
    """A caller every policy rule lets through."""


def _status(volume_id: str) -> str:
    with session.reader() as s:
        return volumes.get(s, volume_id, None).status


def test_a_volume_in_error_is_refused_with_cinders_text(ctx):
    volume_id = make_volume(states.ERROR, host="host1@file#file")
    with pytest.raises(errors.InvalidVolume) as refused:
        attach.create(ctx, "p1", volume_id, "server-1", None, "null", _allowed)
    assert refused.value.format_message() == (
        f"Invalid volume: Volume attachments can not be created if the volume is in an "
        f"error state. The Volume {volume_id} currently has a status of: error ")


def test_a_connection_the_manager_could_not_make_leaves_the_volume_available(
        ctx, monkeypatch):
    volume_id = make_volume(states.AVAILABLE, host="host1@file#file")

    def unreachable(*args, **kwargs):
        raise MessagingTimeout("no reply from volume service host1")

    monkeypatch.setattr(attach.VolumeAPI, "attachment_update", unreachable)
    with pytest.raises(errors.AttachmentFailed) as failed:
        attach.create(ctx, "p1", volume_id, "server-1", {"host": "c1"}, "null", _allowed)
    assert failed.value.code == 500
    assert failed.value.format_message() == (
        "Unable to update attachment (no reply from volume service host1).")
    assert _status(volume_id) == "available"
    with session.reader() as s:
        assert attachments.of_volumes(s, [volume_id]) == {}


def test_only_an_admin_deletes_an_attachment_a_server_uses(ctx, monkeypatch):
    volume_id = make_volume(states.IN_USE, host="host1@file#file")
    with session.writer() as s:
        attachment_id = attachments.create(s, volume_id, "server-1", "rw")
        attachments.change(s, attachment_id, {
            "attach_status": "attached", "connection_info": {"driver_volume_type": "nbd"}})
    with pytest.raises(errors.ConflictNovaUsingAttachment):
        attach.delete(ctx, "p1", attachment_id)
    assert _status(volume_id) == "in-use"
    stopped = []
    monkeypatch.setattr(attach.VolumeAPI, "attachment_delete",
                        lambda self, ctx, host, found: stopped.append((host, found)))
    assert attach.delete(ctx.elevated(), None, attachment_id) == []
    assert stopped == [("host1@file#file", attachment_id)]
    assert _status(volume_id) == "available"


def _attached(volume_id: str, server: str) -> str:
    """An attachment of `server` in use (the volume settled to in-use)."""
    with session.writer() as s:
        attachment_id = attachments.create(s, volume_id, server, "rw")
        attachments.change(s, attachment_id, {
            "attach_status": "attached", "connection_info": {"driver_volume_type": "nbd"}})
        attachments.settle(s, volume_id)
    return attachment_id


def test_a_volume_in_use_is_reserved_for_another_server_only_if_multiattach(ctx):
    single = make_volume(states.AVAILABLE, host="host1@file#file")
    _attached(single, "server-1")
    with pytest.raises(errors.InvalidVolume) as refused:
        attach.create(ctx, "p1", single, "server-2", None, "null", _allowed)
    assert refused.value.format_message() == (
        f"Invalid volume: Volume {single} status must be available or downloading to "
        "reserve, but the current status is in-use.")

    shared = make_volume(states.AVAILABLE, host="host1@file#file", multiattach=True)
    _attached(shared, "server-1")
    second = attach.create(ctx, "p1", shared, "server-2", None, "null", _allowed)
    assert (second.status, second.instance_uuid) == ("reserved", "server-2")
    assert _status(shared) == "in-use"  # while any attachment is in use
    with session.writer() as s:
        volumes.get_row(s, shared, None).status = states.DETACHING
    with pytest.raises(errors.InvalidVolume) as refused:
        attach.create(ctx, "p1", shared, "server-3", None, "null", _allowed)
    assert refused.value.format_message() == (
        f"Invalid volume: Volume {shared} status must be available or in-use or "
        "downloading to reserve, but the current status is detaching.")


def test_a_bootable_multiattach_volume_in_use_needs_its_own_rule(ctx):
    asked = []

    def refuse(rule):
        asked.append(rule)
        raise errors.InvalidInput(reason=rule)

    shared = make_volume(states.AVAILABLE, host="host1@file#file", multiattach=True,
                         bootable=True)
    attach.create(ctx, "p1", shared, "server-1", None, "null", refuse)  # available
    assert asked == []
    with session.writer() as s:
        volumes.get_row(s, shared, None).status = states.IN_USE
    with pytest.raises(errors.InvalidInput):
        attach.create(ctx, "p1", shared, "server-2", None, "null", refuse)
    assert asked == ["volume:multiattach_bootable_volume"]


def test_the_last_detach_of_a_multiattach_volume_makes_it_available(ctx, monkeypatch):
    shared = make_volume(states.AVAILABLE, host="host1@file#file", multiattach=True)
    first, second = _attached(shared, "server-1"), _attached(shared, "server-2")
    monkeypatch.setattr(attach.VolumeAPI, "attachment_delete", lambda *args: None)
    (left,) = attach.delete(ctx.elevated(), None, first)
    assert left.id == second and _status(shared) == "in-use"
    assert attach.delete(ctx.elevated(), None, second) == []
    assert _status(shared) == "available"
