"""Resize and cold migration through the HTTP API of the all-in-one (fake driver, two
hosts): Nova's states on the way, confirm and revert, the 400s and 409s, os-migrations
against tempest's schemas, and placement left consistent after each (the audit finds
nothing)."""

from __future__ import annotations

import uuid

import httpx
import pytest

from novalite import exception
from novalite.clients import placement as placement_client
from novalite.cmd import manage_placement
from novalite.context import get_admin_context
from novalite.db.api import actions, instances, migrations
from novalite.image import db as images
from novalite.objects.migration import Migration
from tests.functional.tempest_schemas import check

MV = "X-OpenStack-Nova-API-Version"
ALICE = {"X-Auth-Token": "alice:proj1"}
PLACEMENT = {"OpenStack-API-Version": "placement 1.39"}


@pytest.fixture
def placement(cloud):
    return httpx.Client(base_url=f"{cloud.base_url}/placement", headers=PLACEMENT,
                        timeout=30)


def _act(cloud, server_id, body, headers=None):
    return cloud.api.post(f"/servers/{server_id}/action", json=body, headers=headers or {})


def _settled(cloud, server_id, status):
    cloud.settle()
    return cloud.wait(lambda: (s := cloud.server(server_id))["status"] == status
                      and s["OS-EXT-STS:task_state"] is None and s)


def _holdings(placement, consumer):
    """{provider name: resources} the consumer holds."""
    names = {rp["uuid"]: rp["name"]
             for rp in placement.get("/resource_providers").json()["resource_providers"]}
    held = placement.get(f"/allocations/{consumer}").json()["allocations"]
    return {names[rp]: alloc["resources"] for rp, alloc in held.items()}


def _consistent(capsys):
    assert manage_placement.audit(heal=False) == 0, capsys.readouterr().out


def _events(server_id, action):
    found = [a for a in actions.actions_get(server_id) if a["action"] == action]
    return {e["event"]: e["result"] for e in found[-1]["events"]}


def _fault_of(server_id):
    """The latest fault (the API shows it only in ERROR, as Nova)."""
    return actions.fault_get_latest([server_id])[server_id]["message"]


def _active(cloud, flavor="1"):
    server_id = cloud.boot("mover", flavor=flavor)
    return server_id, cloud.wait_status(server_id, "ACTIVE")


def _migration(server_id):
    """The server's latest migration (None before the conductor records one)."""
    found = migrations.migrations_list({"instance_uuid": server_id})
    return found[0] if found else None


def test_resize_then_confirm(cloud, placement, capsys):
    server_id, server = _active(cloud)
    source = server["OS-EXT-SRV-ATTR:host"]
    assert _act(cloud, server_id, {"resize": {"flavorRef": "2"}}).status_code == 202
    resized = _settled(cloud, server_id, "VERIFY_RESIZE")
    assert resized["flavor"]["id"] == "2"
    dest = resized["OS-EXT-SRV-ATTR:host"]
    assert dest != source  # allow_resize_to_same_host is off
    migration = _migration(server_id)
    assert (migration["status"], migration["migration_type"]) == ("finished", "resize")
    assert _holdings(placement, server_id) == {dest: {"VCPU": 1, "MEMORY_MB": 2048,
                                                       "DISK_GB": 20}}
    assert _holdings(placement, migration["uuid"]) == {source: {"VCPU": 1, "MEMORY_MB": 512,
                                                                "DISK_GB": 1}}
    assert _events(server_id, "resize") == {
        "conductor_migrate_server": "Success", "compute_prep_resize": "Success",
        "compute_resize_instance": "Success", "compute_finish_resize": "Success"}

    assert _act(cloud, server_id, {"confirmResize": None}).status_code == 204
    confirmed = _settled(cloud, server_id, "ACTIVE")
    assert confirmed["OS-EXT-SRV-ATTR:host"] == dest
    assert migrations.migration_get(migration["uuid"]).status == "confirmed"
    assert _holdings(placement, migration["uuid"]) == {}
    assert _holdings(placement, server_id) == {dest: {"VCPU": 1, "MEMORY_MB": 2048,
                                                       "DISK_GB": 20}}
    assert _events(server_id, "confirmResize") == {"compute_confirm_resize": "Success"}
    assert server_id in cloud.compute(dest).driver.list_instances()
    assert server_id not in cloud.compute(source).driver.list_instances()
    _consistent(capsys)


def test_resize_then_revert(cloud, placement, capsys):
    server_id, server = _active(cloud)
    source = server["OS-EXT-SRV-ATTR:host"]
    assert _act(cloud, server_id, {"resize": {"flavorRef": "2"}}).status_code == 202
    dest = _settled(cloud, server_id, "VERIFY_RESIZE")["OS-EXT-SRV-ATTR:host"]
    assert _act(cloud, server_id, {"revertResize": None}).status_code == 202
    reverted = _settled(cloud, server_id, "ACTIVE")
    assert reverted["OS-EXT-SRV-ATTR:host"] == source
    assert reverted["flavor"]["id"] == "1"
    assert _migration(server_id)["status"] == "reverted"
    assert _holdings(placement, server_id) == {source: {"VCPU": 1, "MEMORY_MB": 512,
                                                         "DISK_GB": 1}}
    assert _holdings(placement, _migration(server_id)["uuid"]) == {}
    assert _events(server_id, "revertResize") == {
        "compute_revert_resize": "Success", "compute_finish_revert_resize": "Success"}
    assert server_id not in cloud.compute(dest).driver.list_instances()
    assert server_id in cloud.compute(source).driver.list_instances()
    _consistent(capsys)


def test_cold_migrate_to_a_named_host_and_confirm(cloud, placement, capsys):
    server_id, server = _active(cloud)
    source = server["OS-EXT-SRV-ATTR:host"]
    other = "compute2" if source == "compute1" else "compute1"
    response = _act(cloud, server_id, {"migrate": {"host": other}}, {MV: "2.56"})
    assert response.status_code == 202, response.text
    migrated = _settled(cloud, server_id, "VERIFY_RESIZE")
    assert migrated["OS-EXT-SRV-ATTR:host"] == other
    assert _migration(server_id)["migration_type"] == "migration"
    assert _act(cloud, server_id, {"confirmResize": None}).status_code == 204
    _settled(cloud, server_id, "ACTIVE")
    assert _holdings(placement, server_id) == {other: {"VCPU": 1, "MEMORY_MB": 512,
                                                        "DISK_GB": 1}}
    _consistent(capsys)


def test_every_server_of_a_multiple_create_can_move(cloud, capsys):
    """Each has its own request spec, as in Nova, not only the first."""
    created = cloud.api.post("/servers", headers=ALICE, json={"server": {
        "name": "pair", "flavorRef": "1", "imageRef": images.DEFAULT_IMAGE_ID,
        "min_count": 2, "return_reservation_id": True}})
    reservation = created.json()["reservation_id"]
    listed = cloud.api.get(f"/servers?all_tenants=1&reservation_id={reservation}").json()[
        "servers"]
    assert len(listed) == 2
    for server in listed:
        _settled(cloud, server["id"], "ACTIVE")
        assert _act(cloud, server["id"], {"migrate": None}).status_code == 202
        _settled(cloud, server["id"], "VERIFY_RESIZE")
        assert _act(cloud, server["id"], {"confirmResize": None}).status_code == 204
        _settled(cloud, server["id"], "ACTIVE")
    _consistent(capsys)


def test_a_stopped_server_migrates_and_stays_stopped(cloud, capsys):
    server_id, _ = _active(cloud)
    assert _act(cloud, server_id, {"os-stop": None}).status_code == 202
    _settled(cloud, server_id, "SHUTOFF")
    assert _act(cloud, server_id, {"migrate": None}).status_code == 202
    _settled(cloud, server_id, "VERIFY_RESIZE")
    assert _act(cloud, server_id, {"confirmResize": None}).status_code == 204
    server = _settled(cloud, server_id, "SHUTOFF")
    assert server["OS-EXT-STS:power_state"] == 4
    _consistent(capsys)


def test_a_smaller_disk_is_refused_and_the_server_stays(cloud, placement, capsys):
    server_id, server = _active(cloud, flavor="2")
    assert _act(cloud, server_id, {"resize": {"flavorRef": "3"}}).status_code == 202
    _settled(cloud, server_id, "VERIFY_RESIZE")
    assert _act(cloud, server_id, {"confirmResize": None}).status_code == 204
    _settled(cloud, server_id, "ACTIVE")
    assert _act(cloud, server_id, {"resize": {"flavorRef": "2"}}).status_code == 202
    back = _settled(cloud, server_id, "ACTIVE")
    assert _fault_of(server_id) == "Resize error: Unable to resize disk down."
    assert _events(server_id, "resize")["compute_resize_instance"] == "Error"
    assert _migration(server_id)["status"] == "error"
    assert _holdings(placement, server_id) == {back["OS-EXT-SRV-ATTR:host"]: {
        "VCPU": 2, "MEMORY_MB": 4096, "DISK_GB": 40}}
    _consistent(capsys)


def test_no_valid_host_leaves_the_server_where_it_was(cloud_factory, capsys):
    cloud = cloud_factory(hosts=1)
    server_id, server = _active(cloud)
    assert _act(cloud, server_id, {"migrate": None}).status_code == 202
    back = _settled(cloud, server_id, "ACTIVE")
    assert back["OS-EXT-SRV-ATTR:host"] == server["OS-EXT-SRV-ATTR:host"]
    assert _fault_of(server_id).startswith("No valid host was found.")
    assert _events(server_id, "migrate")["conductor_migrate_server"] == "Error"
    assert _migration(server_id)["status"] == "error"
    _consistent(capsys)


def test_resize_to_the_same_host_when_allowed(cloud_factory, conf, capsys):
    conf.set_override("allow_resize_to_same_host", True)
    cloud = cloud_factory(hosts=1)
    server_id, server = _active(cloud)
    assert _act(cloud, server_id, {"resize": {"flavorRef": "2"}}).status_code == 202
    resized = _settled(cloud, server_id, "VERIFY_RESIZE")
    assert resized["OS-EXT-SRV-ATTR:host"] == server["OS-EXT-SRV-ATTR:host"]
    assert _act(cloud, server_id, {"revertResize": None}).status_code == 202
    _settled(cloud, server_id, "ACTIVE")
    _consistent(capsys)


def test_resize_confirm_window_confirms_by_itself(cloud_factory, conf, capsys):
    conf.set_override("resize_confirm_window", 1)
    cloud = cloud_factory()
    server_id, _ = _active(cloud)
    assert _act(cloud, server_id, {"resize": {"flavorRef": "2"}}).status_code == 202
    cloud.wait(lambda: (_migration(server_id) or {}).get("status") == "confirmed",
               timeout=30)
    _settled(cloud, server_id, "ACTIVE")
    _consistent(capsys)


def _fault(response, status, name):
    assert response.status_code == status, response.text
    return response.json()[name]["message"]


def test_bad_requests_and_wrong_states(cloud):
    server_id, _ = _active(cloud)
    assert _fault(_act(cloud, server_id, {"resize": {"flavorRef": "1"}}), 400,
                  "badRequest") == "When resizing, instances must change flavor!"
    assert _fault(_act(cloud, server_id, {"resize": {"flavorRef": "nope"}}), 400,
                  "badRequest") == "Unable to locate requested flavor."
    assert _act(cloud, server_id, {"resize": {}}).status_code == 400
    assert _fault(_act(cloud, server_id, {"confirmResize": None}), 409,
                  "conflictingRequest") == (f"Cannot 'confirmResize' instance {server_id} "
                                            "while it is in vm_state active")
    assert _fault(_act(cloud, server_id, {"revertResize": None}), 409,
                  "conflictingRequest") == (f"Cannot 'revertResize' instance {server_id} "
                                            "while it is in vm_state active")
    assert _fault(_act(cloud, server_id, {"migrate": {"host": "compute1"}}), 400,
                  "badRequest").startswith("Invalid input")  # host only from 2.56
    assert _fault(_act(cloud, server_id, {"migrate": {"host": "nowhere"}}, {MV: "2.56"}),
                  400, "badRequest") == "Compute host nowhere could not be found."
    assert _act(cloud, server_id, {"migrate": None}, ALICE).status_code == 404
    assert _act(cloud, server_id, {"os-pause": None}).status_code in (400, 501)
    assert _act(cloud, server_id, {"pause": None}).status_code == 202
    _settled(cloud, server_id, "PAUSED")
    assert _fault(_act(cloud, server_id, {"resize": {"flavorRef": "2"}}), 409,
                  "conflictingRequest") == (f"Cannot 'resize' instance {server_id} while it "
                                            "is in vm_state paused")


def test_migrate_is_for_admins(cloud):
    body = {"server": {"name": "own", "flavorRef": "1", "imageRef": images.DEFAULT_IMAGE_ID}}
    response = cloud.api.post("/servers", json=body, headers=ALICE)
    server_id = response.json()["server"]["id"]
    cloud.wait_status(server_id, "ACTIVE")
    assert _fault(_act(cloud, server_id, {"migrate": None}, ALICE), 403, "forbidden")
    assert _act(cloud, server_id, {"resize": {"flavorRef": "2"}}, ALICE).status_code == 202
    _settled(cloud, server_id, "VERIFY_RESIZE")
    assert _act(cloud, server_id, {"revertResize": None}, ALICE).status_code == 202
    _settled(cloud, server_id, "ACTIVE")


@pytest.mark.parametrize("version,package", [("2.1", "v2_1"), ("2.23", "v2_23"),
                                             ("2.59", "v2_59")])
def test_os_migrations_listing_matches_tempest(cloud, version, package):
    server_id, _ = _active(cloud)
    assert _act(cloud, server_id, {"resize": {"flavorRef": "2"}}).status_code == 202
    _settled(cloud, server_id, "VERIFY_RESIZE")
    listed = check(cloud.api.get("/os-migrations", headers={MV: version}), package,
                   "migrations", "list_migrations")["migrations"]
    assert [m["instance_uuid"] for m in listed] == [server_id]
    assert listed[0]["status"] == "finished"
    filtered = cloud.api.get("/os-migrations", params={"status": "confirmed"},
                             headers={MV: version}).json()["migrations"]
    assert filtered == []
    assert cloud.api.get("/os-migrations", headers={**ALICE, MV: version}).status_code == 403


def test_os_migrations_paging_and_changes(cloud):
    first, _ = _active(cloud)
    assert _act(cloud, first, {"migrate": None}).status_code == 202
    _settled(cloud, first, "VERIFY_RESIZE")
    second, _ = _active(cloud)
    assert _act(cloud, second, {"migrate": None}).status_code == 202
    _settled(cloud, second, "VERIFY_RESIZE")
    headers = {MV: "2.66"}
    page = cloud.api.get("/os-migrations", params={"limit": 1}, headers=headers).json()
    assert [m["instance_uuid"] for m in page["migrations"]] == [second]
    marker = page["migrations"][0]["uuid"]
    assert page["migrations_links"][0]["rel"] == "next"
    rest = cloud.api.get("/os-migrations", params={"marker": marker}, headers=headers)
    assert [m["instance_uuid"] for m in rest.json()["migrations"]] == [first]
    assert _fault(cloud.api.get("/os-migrations", params={"marker": "nope"},
                                headers=headers), 400, "badRequest") == \
        "Marker nope could not be found."
    before = cloud.api.get("/os-migrations", params={"changes-before": "2000-01-01T00:00:00Z"},
                           headers=headers).json()["migrations"]
    assert before == []
    assert cloud.api.get("/os-migrations", params={"changes-before": "2000-01-01"},
                         headers={MV: "2.59"}).status_code == 400
    assert cloud.api.get("/os-migrations", params={"user_id": "x"},
                         headers=headers).status_code == 400


def test_server_migrations_lists_no_cold_move(cloud):
    server_id, _ = _active(cloud)
    assert _act(cloud, server_id, {"migrate": None}).status_code == 202
    _settled(cloud, server_id, "VERIFY_RESIZE")
    response = cloud.api.get(f"/servers/{server_id}/migrations", headers={MV: "2.23"})
    assert response.status_code == 200 and response.json() == {"migrations": []}
    assert cloud.api.get(f"/servers/{server_id}/migrations").status_code == 404


def test_the_audit_knows_a_move_waiting_for_confirmation(cloud, capsys):
    server_id, _ = _active(cloud)
    assert _act(cloud, server_id, {"migrate": None}).status_code == 202
    _settled(cloud, server_id, "VERIFY_RESIZE")
    _consistent(capsys)


def test_deleting_in_verify_resize_confirms_first(cloud, placement, capsys):
    server_id, server = _active(cloud)
    source = server["OS-EXT-SRV-ATTR:host"]
    assert _act(cloud, server_id, {"migrate": None}).status_code == 202
    _settled(cloud, server_id, "VERIFY_RESIZE")
    migration = _migration(server_id)
    assert cloud.api.delete(f"/servers/{server_id}").status_code == 204
    cloud.wait_gone(server_id)
    cloud.settle()
    assert migrations.migration_get(migration["uuid"]).status == "confirmed"
    assert _holdings(placement, migration["uuid"]) == {}
    assert server_id not in cloud.compute(source).driver.resized
    _consistent(capsys)


def test_a_refusing_destination_sends_the_move_to_an_alternate(cloud_factory, capsys):
    cloud = cloud_factory(hosts=3)
    placement = httpx.Client(base_url=f"{cloud.base_url}/placement", headers=PLACEMENT,
                             timeout=30)
    server_id, server = _active(cloud)
    refused = []

    def refuse_once(manager):
        claim = manager.rt.move_claim

        def move_claim(*args, **kwargs):
            if not refused:
                refused.append(manager.host)
                raise exception.ComputeResourcesUnavailable(reason="simulated")
            return claim(*args, **kwargs)
        return move_claim

    for host in ("compute1", "compute2", "compute3"):
        manager = cloud.compute(host)
        manager.rt.move_claim = refuse_once(manager)
    assert _act(cloud, server_id, {"migrate": None}).status_code == 202
    landed = _settled(cloud, server_id, "VERIFY_RESIZE")["OS-EXT-SRV-ATTR:host"]
    assert landed not in (server["OS-EXT-SRV-ATTR:host"], *refused)
    events = _events(server_id, "migrate")
    assert events["conductor_reschedule_move"] == "Success"
    assert events["compute_prep_resize"] == "Success"  # the alternate's
    assert _holdings(placement, server_id).keys() == {landed}
    _consistent(capsys)


def test_growing_beyond_the_ram_quota_is_refused(cloud):
    server_id, _ = _active(cloud)
    response = cloud.api.put("/os-quota-sets/admin", json={"quota_set": {"ram": 1024}})
    assert response.status_code == 200, response.text
    assert _fault(_act(cloud, server_id, {"resize": {"flavorRef": "2"}}), 403,
                  "forbidden") == ("Quota exceeded for ram: Requested 1536, but already "
                                   "used 512 of 1024 ram")
    assert cloud.server(server_id)["OS-EXT-STS:task_state"] is None


def _break(cloud, method, exc):
    def broken(*args, **kwargs):
        raise exc
    for host in ("compute1", "compute2"):
        setattr(cloud.compute(host).driver, method, broken)


def test_a_driver_without_moves_leaves_the_server_on_its_source(cloud, placement, capsys):
    server_id, server = _active(cloud)
    _break(cloud, "migrate_disk_and_power_off", NotImplementedError())
    assert _act(cloud, server_id, {"migrate": None}).status_code == 202
    back = _settled(cloud, server_id, "ACTIVE")
    assert back["OS-EXT-SRV-ATTR:host"] == server["OS-EXT-SRV-ATTR:host"]
    assert _holdings(placement, server_id).keys() == {server["OS-EXT-SRV-ATTR:host"]}
    assert _migration(server_id)["status"] == "error"
    _consistent(capsys)


def test_a_failure_after_the_guest_moved_is_an_error_where_it_is(cloud, placement, capsys):
    server_id, server = _active(cloud)
    _break(cloud, "finish_migration", RuntimeError("the disk copy is corrupt"))
    assert _act(cloud, server_id, {"migrate": None}).status_code == 202
    failed = _settled(cloud, server_id, "ERROR")
    assert failed["fault"]["message"] == "the disk copy is corrupt"
    dest = failed["OS-EXT-SRV-ATTR:host"]
    assert dest != server["OS-EXT-SRV-ATTR:host"]
    assert _holdings(placement, server_id).keys() == {dest}
    assert _holdings(placement, _migration(server_id)["uuid"]) == {}
    _consistent(capsys)


def test_moves_wait_for_an_upgraded_compute(cloud, conf):
    server_id, _ = _active(cloud)
    conf.set_override("compute", "1.4", group="upgrade_levels")
    assert _fault(_act(cloud, server_id, {"resize": {"flavorRef": "2"}}), 409,
                  "conflictingRequest").startswith("Resize and migration are not available")
    assert cloud.server(server_id)["OS-EXT-STS:task_state"] is None


@pytest.mark.parametrize("guest", ["set aside", "only stopped"])
def test_a_source_restarted_mid_handover_takes_the_server_back(cloud, placement, capsys,
                                                               guest):
    """As if the source compute died inside migrate_disk_and_power_off: the guest is set
    aside (or was only stopped yet), the migration holds the source allocation, the task
    is RESIZE_MIGRATING."""
    server_id, server = _active(cloud)
    source = server["OS-EXT-SRV-ATTR:host"]
    manager = cloud.compute(source)
    ctx = get_admin_context()
    instance = instances.instance_get(server_id)
    migration = migrations.migration_create(Migration(
        uuid=str(uuid.uuid4()), instance_uuid=server_id, status="migrating",
        migration_type="migration", source_compute=source, source_node=source))
    assert placement_client.report_client().move_allocations(ctx, server_id,
                                                             migration.uuid)
    instances.instance_update(server_id, {"task_state": "resize_migrating"})
    if guest == "set aside":
        manager.driver.migrate_disk_and_power_off(ctx, instance, "elsewhere", instance.flavor)
    else:
        manager.driver.power_off(instance)

    manager._init_instance(ctx, instances.instance_get(server_id))
    back = _settled(cloud, server_id, "ACTIVE")
    assert (back["OS-EXT-SRV-ATTR:host"], back["OS-EXT-STS:power_state"]) == (source, 1)
    assert _fault_of(server_id).endswith(f"interrupted by a restart of compute {source}")
    assert migrations.migration_get(migration.uuid).status == "error"
    assert _holdings(placement, server_id).keys() == {source}
    _consistent(capsys)


def test_a_destination_restarted_mid_landing_sends_the_server_back(cloud, placement,
                                                                   capsys):
    """As if the destination died before its finish_resize ran (the message gone with
    it): the instance is on it in RESIZE_MIGRATED, its guest still on the source. The
    finish_resize message that comes after the restart undid the move is dropped."""
    server_id, server = _active(cloud)
    source = server["OS-EXT-SRV-ATTR:host"]
    lost = []
    for host in ("compute1", "compute2"):
        cloud.compute(host).finish_resize = lambda ctx, **kwargs: lost.append(kwargs)
    assert _act(cloud, server_id, {"migrate": None}).status_code == 202
    cloud.settle()
    landing = cloud.server(server_id)
    assert landing["OS-EXT-STS:task_state"] == "resize_migrated"
    dest = landing["OS-EXT-SRV-ATTR:host"]
    manager = cloud.compute(dest)
    del manager.finish_resize  # the restarted service's own
    ctx = get_admin_context()

    manager._init_instance(ctx, instances.instance_get(server_id))
    back = _settled(cloud, server_id, "ACTIVE")
    assert (back["OS-EXT-SRV-ATTR:host"], back["OS-EXT-STS:power_state"]) == (source, 1)
    assert _fault_of(server_id).startswith(
        f"The move to {dest} was interrupted by a restart of compute {dest}")
    migration = _migration(server_id)
    assert migration["status"] == "reverted"
    assert _holdings(placement, server_id).keys() == {source}
    assert _holdings(placement, migration["uuid"]) == {}

    manager.finish_resize(ctx, **lost[0])  # delivered late: nothing to finish
    cloud.settle()
    assert _settled(cloud, server_id, "ACTIVE")["OS-EXT-SRV-ATTR:host"] == source
    _consistent(capsys)


def test_a_slow_disk_copy_is_seen_under_way(cloud_factory):
    """[fake_driver] migration_seconds: the copy takes its time, in Nova's task state."""
    cloud = cloud_factory(migration_seconds=2)
    server_id, _ = _active(cloud)
    assert _act(cloud, server_id, {"migrate": None}).status_code == 202
    copying = cloud.wait(lambda: (s := cloud.server(server_id))[
        "OS-EXT-STS:task_state"] == "resize_migrating" and s)
    assert (copying["status"], _migration(server_id)["status"]) == ("RESIZE", "migrating")
    _settled(cloud, server_id, "VERIFY_RESIZE")


def test_a_moved_servers_port_is_bound_where_the_server_is(cloud, capsys):
    with httpx.Client(base_url=f"{cloud.base_url}/networking/v2.0", timeout=30) as net:
        private, = net.get("/networks", params={"name": "private"}).json()["networks"]

        def binding(server_id: str) -> str:
            port, = net.get("/ports", params={"device_id": server_id}).json()["ports"]
            return port["binding:host_id"]

        server_id = cloud.boot("wired", networks=[{"uuid": private["id"]}])
        source = cloud.wait_status(server_id, "ACTIVE")["OS-EXT-SRV-ATTR:host"]
        assert binding(server_id) == source
        assert _act(cloud, server_id, {"migrate": None}).status_code == 202
        dest = _settled(cloud, server_id, "VERIFY_RESIZE")["OS-EXT-SRV-ATTR:host"]
        assert binding(server_id) == dest != source
        assert _act(cloud, server_id, {"revertResize": None}).status_code == 202
        _settled(cloud, server_id, "ACTIVE")
        assert binding(server_id) == source
    _consistent(capsys)
