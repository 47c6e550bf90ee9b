"""The image service's state machine and lookups, on a real (SQLite) database."""

from __future__ import annotations

import pytest

from novalite.context import RequestContext
from novalite.image import api, errors, seed, store
from novalite.image import db as images
from novalite.image.record import ImageRecord
from tests.statements import statements

ALICE = RequestContext(user_id="alice", project_id="p1", roles=["member"])
BOB = RequestContext(user_id="bob", project_id="p2", roles=["member"])


def _new(db, **kw) -> ImageRecord:
    return api.create(ALICE, ImageRecord(id="", **{"disk_format": "raw",
                                                   "container_format": "bare", **kw}))


def test_create_owns_and_queues(db):
    image = _new(db, name="x", tags=["t", "t"])
    assert (image.owner, image.status, image.tags) == ("p1", "queued", ["t"])
    with pytest.raises(errors.Duplicate):
        images.image_create(ImageRecord(id=image.id))


def test_data_needs_both_formats_and_gives_the_virtual_size(db):
    image = _new(db, disk_format=None, container_format=None)
    with pytest.raises(errors.FormatsMissing, match="^Properties disk_format, "
                                                     "container_format must be set"):
        api.upload(image.id, [b"x"])
    images.image_update(image.id, {"disk_format": "qcow2"})
    with pytest.raises(errors.FormatsMissing, match="^Property container_format must"):
        api.upload(image.id, [b"x"])
    images.image_update(image.id, {"container_format": "bare"})
    header = b"QFI\xfb" + bytes(20) + (1 << 30).to_bytes(8, "big") + bytes(100)
    assert api.upload(image.id, [header[:10], header[10:]]).virtual_size == 1 << 30
    assert api.upload(_new(db).id, [b"x" * 10]).virtual_size == 10


def test_a_failed_upload_puts_the_image_back_in_queued(db):
    image = _new(db)

    def broken():
        yield b"part"
        raise ConnectionResetError("client went away")

    with pytest.raises(ConnectionResetError):
        api.upload(image.id, broken())
    assert images.image_get(image.id).status == "queued"
    assert api.upload(image.id, [b"whole"]).status == "active"


def test_only_a_queued_image_takes_data(db):
    image = _new(db)
    images.image_update(image.id, {"status": "saving"})
    with pytest.raises(errors.InvalidStatusTransition):
        api.upload(image.id, [b"x"])


def test_an_image_deleted_during_upload_is_gone(db):
    image = _new(db)

    def deleting():
        yield b"x"
        images.image_destroy(image.id)

    with pytest.raises(errors.ImageGone):
        api.upload(image.id, deleting())
    with pytest.raises(FileNotFoundError):
        store.read(image.id)


def test_deactivate_only_active_images(db):
    image = _new(db)
    with pytest.raises(errors.NotAllowedInStatus):
        api.deactivate(image)
    image = api.upload(image.id, [b"x"])
    api.deactivate(image)
    image = images.image_get(image.id)
    assert image.status == "deactivated"
    with pytest.raises(errors.Deactivated):
        api.download(ALICE, image)
    assert b"".join(api.download(ALICE.elevated(), image)) == b"x"
    api.reactivate(image)
    assert images.image_get(image.id).status == "active"


def test_get_hides_what_the_caller_may_not_see(db):
    image = _new(db, visibility="private")
    assert api.get(ALICE, image.id).id == image.id
    with pytest.raises(errors.ImageNotFound):
        api.get(BOB, image.id)
    with pytest.raises(errors.ImageNotFound):
        api.get_bootable(BOB, image.id)


def test_a_membership_is_read_only_where_it_decides(db):
    """Every boot looks its image up: a public image is the image with its tags, one
    statement."""
    public = _new(db, visibility="public")
    with statements() as seen:
        assert api.get_bootable(BOB, public.id).id == public.id
    selects = [s for s in seen if s.startswith("SELECT")]
    assert len(selects) == 1 and not [s for s in selects if "image_members" in s]
    shared = _new(db, visibility="shared")
    with pytest.raises(errors.ImageNotFound):
        api.get_bootable(BOB, shared.id)
    images.member_create(shared.id, "p2")
    assert api.get(BOB, shared.id).id == shared.id  # visible to decide on it
    with pytest.raises(errors.ImageNotFound):
        api.get_bootable(BOB, shared.id)  # bootable once accepted
    images.member_update(shared.id, "p2", "accepted")
    assert api.get_bootable(BOB, shared.id).id == shared.id
    assert api.get_bootable(ALICE, shared.id).id == shared.id


def test_seeding_is_idempotent(db):
    assert seed.seed_default_image() is True
    assert seed.seed_default_image() is False
    image = images.image_get(images.DEFAULT_IMAGE_ID)
    assert (image.status, image.visibility, image.size) == ("active", "public",
                                                            seed.TINY_SIZE)
