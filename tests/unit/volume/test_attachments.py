"""A volume's status from its attachments (Cinder's rule), on a real database."""

import pytest

from novalite.db import session
from novalite.volume import attachments, states, volumes
from tests.unit.volume.builders import make_volume


@pytest.mark.parametrize(("statuses", "expected"), [
    ((), "available"),
    (("reserved",), "reserved"),
    (("attaching",), "attaching"),
    (("attached",), "in-use"),
    (("detaching",), "detaching"),
    (("reserved", "attached"), "in-use"),
    (("detaching", "attaching"), "attaching"),
    (("reserved", "detaching"), "detaching"),
])
def test_the_volume_takes_the_first_attach_status(db, statuses, expected):
    volume_id = make_volume(states.IN_USE, host="host1@file#file")
    with session.writer() as s:
        for status in statuses:
            attachments.change(s, attachments.create(s, volume_id, None, "null"),
                               {"attach_status": status})
        assert attachments.settle(s, volume_id) == expected
    with session.reader() as s:
        volume = volumes.get(s, volume_id, None)
    assert volume.status == expected
    assert sorted(a.status for a in volume.attachments) == sorted(statuses)


def test_an_attachment_is_scoped_to_its_volumes_project(db):
    volume_id = make_volume(states.AVAILABLE, host="host1@file#file")
    with session.writer() as s:
        attachment_id = attachments.create(s, volume_id, "server-1", "rw")
    with session.reader() as s:
        assert attachments.get(s, attachment_id, "p1").project_id == "p1"
        assert [a.id for a in attachments.list_attachments(s, "p1")] == [attachment_id]
        assert attachments.list_attachments(s, "p2") == []
        with pytest.raises(attachments.errors.VolumeAttachmentNotFound) as missing:
            attachments.get(s, attachment_id, "p2")
    assert missing.value.format_message() == (
        f"Volume attachment could not be found with filter: attachment_id = "
        f"{attachment_id}.")


def test_changing_an_attachment_that_is_gone_is_not_found(db):
    """What the manager meets when a detach removed the attachment it was exporting."""
    volume_id = make_volume(states.AVAILABLE, host="host1@file#file")
    with session.writer() as s:
        attachment_id = attachments.create(s, volume_id, "server-1", "rw")
        attachments.change(s, attachment_id, {"attach_status": attachments.ATTACHING,
                                              "connector": {"host": "h1"}})
    with session.reader() as s:
        found = attachments.get(s, attachment_id, None)
    assert (found.status, found.connector) == ("attaching", {"host": "h1"})
    with session.writer() as s:
        attachments.remove(s, attachment_id)
    with pytest.raises(attachments.errors.VolumeAttachmentNotFound), session.writer() as s:
        attachments.change(s, attachment_id, {"attach_status": attachments.ATTACHED})
