"""Volume rows read back as records: each with its own type, a list in a fixed number of
statements however many volumes it holds."""

import dataclasses
import datetime

import pytest

from novalite.db import session
from novalite.volume import attachments, errors, snapshots, states, volume_types, volumes
from novalite.volume.records import MULTIATTACH
from tests.statements import statements
from tests.unit.volume.builders import make_volume


def _listed() -> tuple[dict[str, volumes.Volume], int]:
    with statements() as seen, session.reader() as s:
        listed = {v.id: v for v in volumes.list_volumes(s, None)}
    return listed, len(seen)


def test_a_list_reads_types_once_however_many_volumes(db):
    plain = make_volume(states.AVAILABLE)
    shared = make_volume(states.AVAILABLE, multiattach=True)
    _, few = _listed()
    more = [make_volume(states.AVAILABLE, multiattach=bool(i % 2)) for i in range(6)]
    listed, many = _listed()
    assert many == few
    assert listed[plain].volume_type.name == volume_types.DEFAULT_TYPE_NAME
    assert listed[plain].volume_type.extra_specs == {}
    assert listed[shared].volume_type.extra_specs == {"multiattach": MULTIATTACH}
    assert [listed[v].multiattach for v in more] == [False, True] * 3


def test_one_volume_reads_with_its_type_and_specs(db):
    with session.writer() as s:
        fast = volume_types.create(s, "fast", None, True, {"a": "1", "b": "2"})
    volume_id = make_volume(states.AVAILABLE)
    with session.writer() as s:
        volumes.get_row(s, volume_id, None).volume_type_id = fast.id
    with session.reader() as s:
        found = volumes.get(s, volume_id, None)
        listed = volume_types.list_types(s, None)
    assert (found.volume_type.id, found.volume_type.extra_specs) == (fast.id,
                                                                    {"a": "1", "b": "2"})
    assert {t.name: t.extra_specs for t in listed} == {
        volume_types.DEFAULT_TYPE_NAME: {}, "fast": {"a": "1", "b": "2"}}


def test_one_volume_is_one_read_whatever_its_specs_and_attachments(db):
    """The volume, its attachments, its type with its specs: a show polled by clients
    (every step of an attach is waited for that way) costs one statement, each
    attachment and spec once in the volume however many of the other it has."""
    with session.writer() as s:
        fast = volume_types.create(s, "fast", None, True, {"a": "1", "b": "2"})
    plain, typed = make_volume(states.AVAILABLE), make_volume(states.AVAILABLE)
    with session.writer() as s:
        volumes.get_row(s, typed, None).volume_type_id = fast.id
        made = [attachments.create(s, typed, f"server-{i}", "rw") for i in range(3)]
    for volume_id, specs, attached in ((plain, {}, []), (typed, {"a": "1", "b": "2"}, made)):
        with session.reader() as s, statements() as seen:
            found = volumes.get(s, volume_id, None)
        assert found.volume_type.extra_specs == specs
        assert [a.id for a in found.attachments] == attached
        assert {a.project_id for a in found.attachments} <= {found.project_id}
        assert len([q for q in seen if not q.startswith("BEGIN")]) == 1


def test_status_swaps_settles_and_removals_on_each_backend(backend_db):
    """Compare-and-swap of a status among several expected ones, the status a volume
    takes from its attachments, and a removal, as each database runs them."""
    volume_id = make_volume(states.AVAILABLE, host="host1@file#file")
    with session.writer() as s:
        assert not volumes.swap_status(s, volume_id, [states.IN_USE, states.ERROR],
                                       {"status": states.DELETING})
        assert volumes.swap_status(s, volume_id, [states.IN_USE, states.AVAILABLE],
                                   {"status": states.RESERVED})
        attachment_id = attachments.create(s, volume_id, "server-1", "rw")
        attachments.change(s, attachment_id, {"attach_status": attachments.ATTACHED})
        assert attachments.settle(s, volume_id) == states.IN_USE
    with session.reader() as s:
        assert volumes.get(s, volume_id, None).status == states.IN_USE
    with session.writer() as s:
        attachments.remove(s, attachment_id)
        assert attachments.settle(s, volume_id) == states.AVAILABLE
        volumes.remove(s, volume_id)
    with pytest.raises(errors.VolumeNotFound), session.reader() as s:
        volumes.get(s, volume_id, None)


def test_a_new_volume_is_what_is_read_back_and_found_by_owner(backend_db):
    """A volume made on a bare connection is the record a read of it gives, columns
    left out unset; its backend is found for its own project or any, never another's."""
    with session.core_writer() as s:
        made = volumes.create(s, {
            "id": "0e5b5cbb-4c39-4d44-9c4e-4b1d4bbd7e0a", "project_id": "p1", "size": 2,
            "status": states.CREATING, "availability_zone": "nova",
            "volume_type_id": volume_types.default(s).id})
    with session.core_reader() as s:
        read = volumes.get(s, made.id, "p1")
        # MariaDB's DATETIME keeps whole seconds
        assert read == dataclasses.replace(made, created_at=read.created_at)
        assert made.created_at - read.created_at < datetime.timedelta(seconds=1)
        assert volumes.host_of(s, made.id, "p1") is None
    with session.core_writer() as s:
        volumes.place(s, made.id, "host1@file#file")
    with session.core_reader() as s:
        assert volumes.host_of(s, made.id, None) == "host1@file#file"
        with pytest.raises(errors.VolumeNotFound):
            volumes.host_of(s, made.id, "p2")
        with pytest.raises(errors.VolumeNotFound):
            volumes.host_of(s, "missing", None)
    assert (made.bootable, made.metadata, made.host, made.updated_at) == (False, {}, None, None)


def test_a_snapshot_is_found_for_its_own_project_only(backend_db):
    volume_id = make_volume(states.AVAILABLE)
    with session.writer() as s:
        made = snapshots.create(s, {
            "id": "5d0c3d8e-3ad9-4b4e-a7f4-0d6a1c4f0b11", "project_id": "p1",
            "volume_id": volume_id, "volume_size": 1, "status": snapshots.AVAILABLE})
    with session.core_reader() as s:
        read = snapshots.get(s, made.id, "p1")
        assert read == snapshots.get(s, made.id, None)
        assert read == dataclasses.replace(made, created_at=read.created_at)
        assert snapshots.of_volume(s, volume_id) == 1
        for project_id, snapshot_id in (("p2", made.id), (None, "missing")):
            with pytest.raises(errors.SnapshotNotFound):
                snapshots.get(s, snapshot_id, project_id)
