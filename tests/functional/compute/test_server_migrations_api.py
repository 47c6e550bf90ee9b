"""`/servers/{id}/migrations` through real HTTP (fake driver whose live migrations run
until stopped): the running migration listed and shown (2.23, 2.59, 2.80), forced to
complete (2.22), aborted while running (2.24) and before its source started it (2.65),
with Nova's 400/404/409 and placement left with the one allocation of a live server."""

from __future__ import annotations

import threading
import time
import uuid

import pytest

from novalite.cmd import manage_placement
from novalite.context import get_admin_context
from novalite.db.api import instances, migrations
from novalite.image import db as images
from novalite.objects.migration import Migration
from novalite.virt.fake import FakeDriver
from tests.functional.tempest_schemas import check

MV = "X-OpenStack-Nova-API-Version"
ALICE = {"X-Auth-Token": "alice:proj1"}


@pytest.fixture
def cloud(cloud_factory):
    return cloud_factory(live_migration_seconds=600)


@pytest.fixture
def server(cloud):
    created = cloud.api.post("/servers", headers=ALICE, json={"server": {
        "name": "mover", "flavorRef": "1", "imageRef": images.DEFAULT_IMAGE_ID}})
    server_id = created.json()["server"]["id"]
    cloud.wait_status(server_id, "ACTIVE")
    return server_id


def _running(cloud, server):
    """Start a live migration and wait for its source to be copying."""
    response = cloud.api.post(f"/servers/{server}/action", headers={MV: "2.25"},
                              json={"os-migrateLive": {"host": None,
                                                       "block_migration": "auto"}})
    assert response.status_code == 202, response.text
    return cloud.wait(lambda: next(
        (m for m in migrations.migrations_list({"instance_uuid": server})
         if m["status"] == "running"), None))


def _other_host(cloud, host):
    return next(s.host for s in cloud.aio.services
                if s.binary == "novalite-compute" and s.host != host)


def _url(server, record, suffix=""):
    return f"/servers/{server}/migrations/{record['id']}{suffix}"


def test_a_running_migration_is_listed_and_shown(cloud, server):
    record = _running(cloud, server)
    listed = cloud.api.get(f"/servers/{server}/migrations", headers={MV: "2.80"})
    (shown_in_list,) = listed.json()["migrations"]
    assert (shown_in_list["id"], shown_in_list["status"]) == (record["id"], "running")
    for version in ("2.23", "2.59", "2.80"):
        shown = cloud.api.get(_url(server, record), headers={MV: version})
        assert shown.status_code == 200, shown.text
        body = shown.json()["migration"]
        assert (body["server_uuid"], body["source_compute"]) == (
            server, record["source_compute"])
        assert ("uuid" in body, "project_id" in body) == (version >= "2.59",
                                                          version == "2.80")
    assert cloud.api.get(_url(server, record), headers={MV: "2.22"}).status_code == 404
    assert cloud.api.delete(_url(server, record), headers={MV: "2.24"}).status_code == 202


def test_force_complete_ends_the_copy_now(cloud, server, capsys):
    record = _running(cloud, server)
    forced = cloud.api.post(_url(server, record, "/action"), headers={MV: "2.22"},
                            json={"force_complete": None})
    assert forced.status_code == 202, forced.text
    moved = cloud.wait_status(server, "ACTIVE")
    cloud.wait(lambda: migrations.migration_get(record["uuid"]).status == "completed")
    assert cloud.server(server)["OS-EXT-SRV-ATTR:host"] == record["dest_compute"]
    assert moved["OS-EXT-STS:power_state"] == 1
    actions = cloud.api.get(f"/servers/{server}/os-instance-actions").json()[
        "instanceActions"]
    assert "live_migration_force_complete" in [a["action"] for a in actions]
    gone = cloud.api.get(_url(server, record), headers={MV: "2.23"})
    assert gone.json()["itemNotFound"]["message"] == (
        f"Live migration {record['id']} for server {server} is not in progress.")
    assert manage_placement.audit(heal=False) == 0, capsys.readouterr().out


def test_abort_leaves_the_server_running_where_it_was(cloud, server, capsys,
                                                      monkeypatch):
    """The server is idle again only once the destination has removed what it
    prepared (a slow removal here), so a next live migration there finds none of it."""
    removed = threading.Event()

    def slow_rollback(driver, ctx, instance):
        time.sleep(0.5)  # a guest that takes its time to stop
        removed.set()

    monkeypatch.setattr(FakeDriver, "rollback_live_migration_at_destination", slow_rollback)
    record = _running(cloud, server)
    aborted = cloud.api.delete(_url(server, record), headers={MV: "2.24"})
    assert aborted.status_code == 202, aborted.text
    cloud.wait(lambda: migrations.migration_get(record["uuid"]).status == "cancelled")
    back = cloud.wait(lambda: (s := cloud.server(server))["OS-EXT-STS:task_state"] is None
                      and s)
    assert removed.is_set()
    assert (back["status"], back["OS-EXT-SRV-ATTR:host"]) == (
        "ACTIVE", record["source_compute"])
    assert "fault" not in back
    assert manage_placement.audit(heal=False) == 0, capsys.readouterr().out


def test_a_destination_failing_to_clean_up_does_not_hold_the_server(cloud, server, capsys,
                                                                   monkeypatch):
    def broken_rollback(driver, ctx, instance):
        raise RuntimeError("the destination's guest would not stop")

    monkeypatch.setattr(FakeDriver, "rollback_live_migration_at_destination",
                        broken_rollback)
    record = _running(cloud, server)
    assert cloud.api.delete(_url(server, record), headers={MV: "2.24"}).status_code == 202
    back = cloud.wait(lambda: (s := cloud.server(server))["OS-EXT-STS:task_state"] is None
                      and s)
    assert (back["status"], back["OS-EXT-SRV-ATTR:host"]) == (
        "ACTIVE", record["source_compute"])
    assert migrations.migration_get(record["uuid"]).status == "cancelled"
    assert manage_placement.audit(heal=False) == 0, capsys.readouterr().out


def test_a_queued_migration_is_aborted_from_2_65(cloud, server, capsys):
    """A migration the conductor has prepared but its source has not started: refused
    before 2.65, cancelled from it, and the source's start then does nothing."""
    instance = instances.instance_get(server)
    record = migrations.migration_create(Migration(
        uuid=str(uuid.uuid4()), instance_uuid=server, migration_type="live-migration",
        status="preparing", source_compute=instance.host, source_node=instance.node,
        dest_compute=_other_host(cloud, instance.host),
        dest_node=_other_host(cloud, instance.host)))
    instances.instance_update(server, {"task_state": "migrating"})
    url = f"/servers/{server}/migrations/{record.id}"
    early = cloud.api.delete(url, headers={MV: "2.64"})
    assert early.json()["badRequest"]["message"] == (
        f"Migration {record.id} state of instance {server} is preparing. Cannot abort "
        "live migration while the migration is in this state.")
    assert cloud.api.delete(url, headers={MV: "2.65"}).status_code == 202
    cloud.wait(lambda: migrations.migration_get(record.uuid).status == "cancelled")
    cloud.wait(lambda: cloud.server(server)["OS-EXT-STS:task_state"] is None)
    compute = cloud.compute(instance.host)
    compute.live_migration(get_admin_context(), instances.instance_get(server), record)
    assert migrations.migration_get(record.uuid).status == "cancelled"
    assert cloud.server(server)["OS-EXT-SRV-ATTR:host"] == instance.host
    assert manage_placement.audit(heal=False) == 0, capsys.readouterr().out


def test_bad_requests(cloud, server):
    idle = cloud.api.post(f"/servers/{server}/migrations/1/action", headers={MV: "2.22"},
                          json={"force_complete": None})
    assert idle.json()["conflictingRequest"]["message"] == (
        f"Cannot 'force_complete' instance {server} while it is in task_state None")
    assert cloud.api.delete(f"/servers/{server}/migrations/1",
                            headers={MV: "2.24"}).status_code == 409
    record = _running(cloud, server)
    unknown = cloud.api.delete(f"/servers/{server}/migrations/4242", headers={MV: "2.24"})
    assert unknown.json()["itemNotFound"]["message"] == (
        f"Migration 4242 not found for instance {server}")
    assert cloud.api.post(_url(server, record, "/action"), headers={MV: "2.22"},
                          json={"force_complete": 1}).status_code == 400
    assert cloud.api.post(_url(server, record, "/action"), headers={MV: "2.21"},
                          json={"force_complete": None}).status_code == 404
    assert cloud.api.delete(_url(server, record), headers={MV: "2.23"}).status_code == 404
    refused = cloud.api.delete(_url(server, record), headers={MV: "2.24", **ALICE})
    assert refused.status_code == 403
    missing = cloud.api.get(f"/servers/{server}/migrations/999", headers={MV: "2.23"})
    assert missing.json()["itemNotFound"]["message"] == (
        f"In-progress live migration 999 for server {server} is not found.")
    listed = check(cloud.api.get("/os-migrations", headers={MV: "2.80"}), "v2_80",
                   "migrations", "list_migrations")["migrations"]
    assert [m["status"] for m in listed] == ["running"]
    assert cloud.api.delete(_url(server, record), headers={MV: "2.24"}).status_code == 202
    cloud.wait(lambda: cloud.server(server)["OS-EXT-STS:task_state"] is None)
