"""Image records, tags, members and the visibility SQL, on each database backend."""

from __future__ import annotations

import dataclasses
import threading

import pytest

from novalite.context import RequestContext
from novalite.image import db as images
from novalite.image import errors, visibility
from novalite.image.record import ImageRecord
from tests.statements import statements

ALICE = RequestContext(user_id="alice", project_id="p1", roles=["member"])
BOB = RequestContext(user_id="bob", project_id="p2", roles=["member"])
ADMIN = RequestContext(user_id="admin", project_id="admin", roles=["admin"], is_admin=True)


def _image(image_id: str, shown: str, owner: str = "p1", **kw) -> ImageRecord:
    return images.image_create(ImageRecord(id=image_id, visibility=shown, owner=owner, **kw))


def test_round_trip_properties_hidden_and_tags(backend_db):
    created = _image("i1", "private", properties={"hw_architecture": "x86_64"},
                     os_hidden=True, tags=["b", "a"])
    stored = images.image_get("i1")
    assert dataclasses.replace(stored, created_at=None) == \
        dataclasses.replace(created, created_at=None)  # MariaDB keeps whole seconds
    assert (created.properties, created.os_hidden, created.tags) == (
        {"hw_architecture": "x86_64"}, True, ["a", "b"])
    updated = images.image_update("i1", {"name": "n", "os_hidden": False,
                                         "properties": {"k": "v"}})
    assert (updated.name, updated.os_hidden, updated.properties) == ("n", False, {"k": "v"})
    images.tag_add("i1", "c")
    images.tag_delete("i1", "a")
    with pytest.raises(errors.TagNotFound):
        images.tag_delete("i1", "a")
    assert images.image_get("i1").tags == ["b", "c"]


def test_an_image_read_alone_is_the_one_listed_and_takes_one_statement(backend_db):
    """Each boot reads its image: the read of one (Core rows, its tags joined) builds
    what the listing (ORM rows) does, with and without tags."""
    _image("i1", "public", properties={"k": "v"}, tags=["b", "a"], min_ram=64, size=9)
    _image("i2", "public")
    listed = {image.id: image for image in images.image_get_all(visibility.list_clause(
        ADMIN, None, "all"))}
    for image_id in ("i1", "i2"):
        with statements() as seen:
            assert images.image_get(image_id) == listed[image_id]
        assert len([s for s in seen if s.lstrip().startswith("SELECT")]) == 1


def test_destroyed_ids_stay_taken(backend_db):
    _image("i1", "private", tags=["t"])
    images.member_create("i1", "p2")
    images.image_destroy("i1")
    with pytest.raises(errors.ImageNotFound):
        images.image_get("i1")
    with pytest.raises(errors.Duplicate):
        _image("i1", "private")


def test_members(backend_db):
    _image("i1", "shared")
    images.member_create("i1", "p2")
    with pytest.raises(errors.MemberDuplicate):
        images.member_create("i1", "p2")
    assert images.member_status("i1", "p2") == "pending"
    assert images.member_update("i1", "p2", "accepted").status == "accepted"
    assert [m.member_id for m in images.member_get_all("i1")] == ["p2"]
    images.member_delete("i1", "p2")
    with pytest.raises(errors.MemberNotFound):
        images.member_delete("i1", "p2")
    assert images.member_status("i1", "p2") is None


def test_list_visibility_in_sql(backend_db):
    for shown in visibility.VISIBILITIES:
        _image(shown, shown)
    _image("accepted", "shared")
    images.member_create("accepted", "p2")
    images.member_update("accepted", "p2", "accepted")
    _image("pending", "shared")
    images.member_create("pending", "p2")

    def ids(ctx, shown=None, member_status="accepted"):
        found = images.image_get_all(visibility.list_clause(ctx, shown, member_status))
        return {i.id for i in found}

    assert ids(BOB) == {"public", "accepted"}
    assert ids(BOB, member_status="pending") == {"public", "pending"}
    assert ids(BOB, "shared", "all") == {"accepted", "pending"}
    assert ids(BOB, "all") == {"public", "community", "accepted"}
    assert ids(BOB, "private") == set()
    assert ids(ALICE) == {"public", "private", "shared", "community", "accepted", "pending"}
    assert ids(ALICE, "shared") == {"shared", "accepted", "pending"}
    assert ids(ADMIN, "community") == {"community"}
    assert len(ids(ADMIN)) == 6


def test_one_of_two_racing_uploads_starts(backend_db):
    _image("i1", "private")
    results: list[str] = []
    barrier = threading.Barrier(2)

    def start():
        barrier.wait()
        try:
            images.image_update("i1", {"status": "saving"}, from_status=("queued",))
            results.append("started")
        except errors.InvalidStatusTransition:
            results.append("conflict")

    threads = [threading.Thread(target=start) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results) == ["conflict", "started"]
