"""The volume service's request checks, on a real database (no manager runs)."""

import pytest

from novalite import context
from novalite.db import session
from novalite.volume import api, errors, quotas, states, volumes
from tests.unit.volume.builders import make_volume, multiattach_type


@pytest.fixture
def ctx(db):
    return context.RequestContext(project_id="p1", user_id="u1")


def _allowed(rule: str) -> None:
    """A caller every policy rule lets through."""


def test_a_volume_that_is_not_deletable_is_refused_with_cinders_text(ctx):
    volume_id = make_volume(states.CREATING, host="host1@file#file")
    with pytest.raises(errors.InvalidVolume) as refused:
        api.delete(ctx, "p1", volume_id)
    assert refused.value.format_message() == (
        "Invalid volume: Volume status must be available or error or error_restoring or "
        "error_extending or error_managing and must not be migrating, attached, belong to "
        "a group, have snapshots, awaiting a transfer, or be disassociated from snapshots "
        "after volume transfer.")
    with session.reader() as s:
        assert volumes.get(s, volume_id, None).status == states.CREATING


@pytest.mark.parametrize(("image", "message"), [
    ({"status": "queued"}, "Image i1 is not active."),
    ({"disk_format": "vmdk"}, "Image i1 has disk format vmdk; novalite writes raw or qcow2 "
                              "images into volumes."),
    ({"size": 1024**3 + 1}, "Size of specified image 2GB is larger than volume size 1GB."),
    ({"min_disk": 2}, "Volume size 1GB cannot be smaller than the image minDisk size 2GB."),
])
def test_an_image_the_volume_cannot_take_is_refused(ctx, monkeypatch, image, message):
    found = {"id": "i1", "status": "active", "disk_format": "raw", "size": 1, **image}
    monkeypatch.setattr(api.glance, "show", lambda ctx, image_id: found)
    with pytest.raises(errors.InvalidInput) as refused:
        api.create(ctx, 1, {"image_id": "i1"}, _allowed)
    assert refused.value.format_message() == f"Invalid input received: {message}"


def test_a_create_that_a_racing_one_took_over_quota_is_undone_and_refused(ctx, monkeypatch):
    """On PostgreSQL and MariaDB two creates can both pass the check before either
    inserts: the recheck after the commit finds the excess and removes its own volume."""
    monkeypatch.setattr(session, "writes_serialised", lambda: False)
    with session.writer() as s:
        quotas.update(s, "p1", {"volumes": 1})
    make_volume(states.AVAILABLE, size=1)  # the racer's, committed after our check
    monkeypatch.setattr(quotas, "check", lambda *args, **kwargs: None)
    with pytest.raises(errors.VolumeLimitExceeded):
        api.create(ctx, 1, {"name": "late"}, _allowed)
    with session.reader() as s:
        assert quotas.usage(s, "p1")["volumes"] == 1


def test_serialised_writes_need_no_recheck(ctx, monkeypatch):
    """On SQLite the check in the create's own transaction holds until it commits: a
    recheck (a transaction more per volume and snapshot) could never refuse."""
    assert session.writes_serialised()

    def recheck(*args, **kwargs):
        raise AssertionError("rechecked")

    monkeypatch.setattr(quotas, "recheck", recheck)
    monkeypatch.setattr(api.VolumeAPI, "create_volume", lambda *args: None)
    with session.writer() as s:
        quotas.update(s, "p1", {"volumes": 1})
    api.create(ctx, 1, {"name": "first"}, _allowed)
    with pytest.raises(errors.VolumeLimitExceeded):
        api.create(ctx, 1, {"name": "second"}, _allowed)


class Refused(Exception):
    pass


def test_a_volume_of_a_multiattach_type_needs_the_multiattach_rule(ctx, monkeypatch):
    asked = []

    def refuse(rule):
        asked.append(rule)
        raise Refused(rule)

    monkeypatch.setattr(api.VolumeAPI, "create_volume", lambda *args: None)
    multi = multiattach_type()
    assert api.create(ctx, 1, {"name": "plain"}, refuse).multiattach is False
    with pytest.raises(Refused):
        api.create(ctx, 1, {"name": "shared", "volume_type": multi}, refuse)
    assert asked == ["volume:multiattach"]
    with session.reader() as s:
        assert [v.name for v in volumes.list_volumes(s, "p1")] == ["plain"]
    made = api.create(ctx, 1, {"name": "shared", "volume_type": multi}, _allowed)
    assert made.multiattach is True
