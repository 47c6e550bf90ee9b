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


def _status(volume_id: str) -> str:
    with session.reader() as s:
        return volumes.get(s, volume_id, None).status


def test_a_volume_in_error_is_refused_with_cinders_text(ctx):
    volume_id = make_volume(states.ERROR, host="host1@file#file")
    with pytest.raises(errors.InvalidVolume) as refused:
        attach.create(ctx, "p1", volume_id, "server-1", None, "null")
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
        attach.create(ctx, "p1", volume_id, "server-1", {"host": "c1"}, "null")
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
        row, _ = attachments.get_row(s, attachment_id, None)
        row.attach_status, row.connection_info = "attached", {"driver_volume_type": "nbd"}
    with pytest.raises(errors.ConflictNovaUsingAttachment):
        attach.delete(ctx, "p1", attachment_id)
    assert _status(volume_id) == "in-use"
    stopped = []
    monkeypatch.setattr(attach.VolumeAPI, "attachment_delete",
                        lambda self, ctx, host, found: stopped.append((host, found)))
    assert attach.delete(ctx.elevated(), None, attachment_id) == []
    assert stopped == [("host1@file#file", attachment_id)]
    assert _status(volume_id) == "available"
