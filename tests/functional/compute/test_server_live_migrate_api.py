"""os-migrateLive through real HTTP (fake driver, two hosts): MIGRATING then ACTIVE on
the other host, the live-migration record, placement holding one allocation at the end
(the audit finding nothing), a refusing driver leaving the server where it was with a
fault, and Nova's 400/403/409."""

from __future__ import annotations

import uuid

import httpx
import pytest

from novalite.clients import placement as placement_client
from novalite.cmd import manage_placement
from novalite.context import get_admin_context
from novalite.db.api import instances, migrations
from novalite.image import db as images
from novalite.objects.migration import Migration
from tests.functional.tempest_schemas import check

MV = "X-OpenStack-Nova-API-Version"
ALICE = {"X-Auth-Token": "alice:proj1"}


@pytest.fixture
def placement(cloud):
    return httpx.Client(base_url=f"{cloud.base_url}/placement",
                        headers={"OpenStack-API-Version": "placement 1.39"}, timeout=30)


@pytest.fixture
def server(cloud):
    created = cloud.api.post("/servers", headers=ALICE, json={"server": {
        "name": "mover", "flavorRef": "1", "imageRef": images.DEFAULT_IMAGE_ID}})
    server_id = created.json()["server"]["id"]
    cloud.wait_status(server_id, "ACTIVE")
    return server_id


def _live(cloud, server_id, version="2.25", who=None, **body):
    return cloud.api.post(f"/servers/{server_id}/action", headers={MV: version, **(who or {})},
                          json={"os-migrateLive": {"host": None, "block_migration": "auto",
                                                   **body}})


def _holders(placement, consumer):
    names = {rp["uuid"]: rp["name"]
             for rp in placement.get("/resource_providers").json()["resource_providers"]}
    held = placement.get(f"/allocations/{consumer}").json()["allocations"]
    return sorted(names[rp] for rp in held)


def test_a_live_migration_moves_the_running_server(cloud, server, placement, capsys):
    source = cloud.server(server)["OS-EXT-SRV-ATTR:host"]
    assert _live(cloud, server).status_code == 202
    moved = cloud.wait_status(server, "ACTIVE")
    assert moved["OS-EXT-SRV-ATTR:host"] not in (None, source)
    assert moved["OS-EXT-STS:power_state"] == 1
    assert _holders(placement, server) == [moved["OS-EXT-SRV-ATTR:host"]]
    (record,) = migrations.migrations_list({"instance_uuid": server})
    assert (record["migration_type"], record["status"], record["source_compute"]) == (
        "live-migration", "completed", source)
    assert _holders(placement, record["uuid"]) == []
    listed = check(cloud.api.get("/os-migrations", headers={MV: "2.23"}), "v2_23",
                   "migrations", "list_migrations")["migrations"]
    assert [m["migration_type"] for m in listed] == ["live-migration"]
    actions = cloud.api.get(f"/servers/{server}/os-instance-actions").json()[
        "instanceActions"]
    assert actions[0]["action"] == "live-migration"
    assert manage_placement.audit(heal=False) == 0, capsys.readouterr().out


def test_to_a_named_host_and_a_paused_server(cloud, server):
    cloud.api.post(f"/servers/{server}/action", json={"pause": None}, headers=ALICE)
    cloud.wait_status(server, "PAUSED")
    source = cloud.server(server)["OS-EXT-SRV-ATTR:host"]
    other = "compute2" if source == "compute1" else "compute1"
    assert _live(cloud, server, host=other).status_code == 202
    moved = cloud.wait_status(server, "PAUSED")
    assert (moved["OS-EXT-SRV-ATTR:host"], moved["OS-EXT-STS:power_state"]) == (other, 3)


def test_a_driver_that_cannot_move_leaves_the_server_running_where_it_was(
        cloud, server, placement, capsys):
    source = cloud.server(server)["OS-EXT-SRV-ATTR:host"]

    def cannot(*args, **kwargs):
        raise NotImplementedError()

    cloud.compute(source).driver.live_migration = cannot
    assert _live(cloud, server).status_code == 202
    cloud.settle()
    back = cloud.wait(lambda: (s := cloud.server(server))["OS-EXT-STS:task_state"] is None
                      and s)
    assert (back["status"], back["OS-EXT-SRV-ATTR:host"]) == ("ACTIVE", source)
    assert _holders(placement, server) == [source]
    (record,) = migrations.migrations_list({"instance_uuid": server})
    assert record["status"] == "error"
    assert manage_placement.audit(heal=False) == 0, capsys.readouterr().out


@pytest.mark.parametrize(("version", "body", "status", "wanted"), [
    ("2.24", {"block_migration": "auto"}, 400, "block_migration"),
    ("2.1", {"block_migration": False}, 400, "disk_over_commit"),
    ("2.25", {"host": "compute9"}, 400, "Compute host compute9 could not be found."),
    ("2.68", {"force": True}, 400, "Additional properties are not allowed"),
])
def test_bad_requests(cloud, server, version, body, status, wanted):
    response = _live(cloud, server, version, **body)
    assert response.status_code == status, response.text
    assert wanted in response.json()["badRequest"]["message"]


def test_admins_only_and_only_from_a_running_or_paused_server(cloud, server):
    refused = _live(cloud, server, who=ALICE)
    assert refused.status_code == 403
    cloud.api.post(f"/servers/{server}/action", json={"os-stop": None}, headers=ALICE)
    cloud.wait_status(server, "SHUTOFF")
    stopped = _live(cloud, server)
    assert (stopped.status_code, stopped.json()["conflictingRequest"]["message"]) == (
        409, f"Cannot 'live_migrate' instance {server} while it is in vm_state stopped")
    host = cloud.server(server)["OS-EXT-SRV-ATTR:host"]
    cloud.api.post(f"/servers/{server}/action", json={"os-start": None}, headers=ALICE)
    cloud.wait_status(server, "ACTIVE")
    same = _live(cloud, server, host=host)
    assert same.json()["badRequest"]["message"] == (
        "Cannot migrate to the host where the server exists.")


def test_a_source_restarted_mid_migration_takes_the_server_back(cloud, server, placement,
                                                                 capsys):
    source = cloud.server(server)["OS-EXT-SRV-ATTR:host"]
    ctx = get_admin_context()
    migration = migrations.migration_create(Migration(
        uuid=str(uuid.uuid4()), instance_uuid=server, status="running",
        migration_type="live-migration", source_compute=source, source_node=source,
        dest_compute="elsewhere", dest_node="elsewhere"))
    assert placement_client.report_client().move_allocations(ctx, server, migration.uuid)
    instances.instance_update(server, {"task_state": "migrating"})
    cloud.compute(source)._init_instance(ctx, instances.instance_get(server))
    back = cloud.wait(lambda: (s := cloud.server(server))["OS-EXT-STS:task_state"] is None
                      and s)
    assert (back["status"], back["OS-EXT-SRV-ATTR:host"]) == ("ACTIVE", source)
    assert migrations.migration_get(migration.uuid).status == "error"
    assert _holders(placement, server) == [source]
    assert manage_placement.audit(heal=False) == 0, capsys.readouterr().out
