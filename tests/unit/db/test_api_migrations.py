"""Migration records: the status compare-and-set an abort races a live migration's start
on, and the lookup by the id in the API's paths."""

import uuid

import pytest

from novalite import exception
from novalite.db.api import migrations
from novalite.objects.migration import Migration


def _create(instance_uuid: str = "i-1") -> Migration:
    return migrations.migration_create(Migration(
        uuid=str(uuid.uuid4()), instance_uuid=instance_uuid,
        migration_type="live-migration", status="preparing", source_compute="h1"))


def test_status_changes_only_from_an_expected_one(db):
    record = _create()
    cancelled = migrations.migration_update(record.uuid, {"status": "cancelled"},
                                            expected_status=["preparing"])
    assert cancelled.status == "cancelled"
    with pytest.raises(exception.UnexpectedMigrationStatus):
        migrations.migration_update(record.uuid, {"status": "running"},
                                    expected_status=["preparing"])
    assert migrations.migration_get(record.uuid).status == "cancelled"


def test_found_by_id_only_for_its_own_instance(db):
    record = _create()
    found = migrations.migration_get_by_id_and_instance(str(record.id), "i-1")
    assert found.uuid == record.uuid
    for migration_id, instance_uuid in ((str(record.id), "i-2"), ("4242", "i-1"),
                                        ("x", "i-1"), ("²", "i-1"), ("9" * 30, "i-1")):
        with pytest.raises(exception.MigrationNotFoundForInstance):
            migrations.migration_get_by_id_and_instance(migration_id, instance_uuid)


def test_the_moves_holding_resources_on_a_host_are_those_under_way_from_or_to_it(db):
    def move(kind, status, source, dest):
        return migrations.migration_create(Migration(
            uuid=str(uuid.uuid4()), instance_uuid="i-1", migration_type=kind,
            status=status, source_compute=source, dest_compute=dest)).uuid

    resizing = move("resize", "finished", "h1", "h2")
    evacuated = move("evacuation", "done", "h2", "h3")  # its source not yet cleaned
    move("resize", "confirmed", "h1", "h2")
    running = move("live-migration", "running", "h3", "h4")
    assert {m.uuid for m in migrations.migration_get_in_progress_by_host("h2")} == {
        resizing, evacuated}
    assert {m.uuid for m in migrations.migration_get_in_progress_by_host("h1")} == {resizing}
    assert migrations.migration_get_in_progress_by_host("h5") == []
    by_host = migrations.migration_get_in_progress_by_hosts(["h1", "h2", "h4", "h5"])
    assert {host: {m.uuid for m in moves} for host, moves in by_host.items()} == {
        "h1": {resizing}, "h2": {resizing, evacuated}, "h4": {running}}
