"""Real QEMU guests moved between two QEMU computes sharing this machine, each with its
own instances directory (no shared storage: a cold move's disk goes over NBD): a cold
migration confirmed, a resize that gives the guest more memory, then reverted to the
original guest on its own disk; live migrations (QEMU's own, the disk mirrored over
NBD) that keep the guest running, aborted and forced to complete; an evacuation from a
compute that stopped, and a shelved server unshelved onto the other compute."""

from __future__ import annotations

import contextlib
import os

from novalite.all_in_one import driver_args
from novalite.db.api import actions
from novalite.service import assembly
from novalite.virt.qemu.guest_image import DISK_TEXT, MARKER
from novalite.virt.qemu.qmp import QMPError
from tests.integration.virt.qemu.test_real_guests import (
    NANO,
    action,
    service_id,
    wait_console,
    wait_settled,
)

MICRO = "84"  # 192 MiB
LIVE = {"X-OpenStack-Nova-API-Version": "2.80"}


def _host(cloud, server_id) -> str:
    return cloud.server(server_id)["OS-EXT-SRV-ATTR:host"]


def _guest_dir(host: str, server_id: str) -> str:
    return os.path.join(driver_args(host)["instances_dir"], server_id)


def _settled(cloud, server_id, status) -> dict:
    return cloud.wait(lambda: (s := cloud.server(server_id))["status"] == status
                      and s["OS-EXT-STS:task_state"] is None and s, timeout=180)


def test_cold_migrate_then_resize_and_revert_real_guests(two_qemu_hosts):
    cloud = two_qemu_hosts
    server_id = cloud.boot("mover", flavor=NANO)
    wait_settled(cloud, server_id, "ACTIVE", 1)
    wait_console(cloud, server_id, MARKER)
    source = _host(cloud, server_id)

    action(cloud, server_id, {"migrate": None})
    _settled(cloud, server_id, "VERIFY_RESIZE")
    target = _host(cloud, server_id)
    assert target != source
    out = wait_console(cloud, server_id, MARKER)  # a new console, on the new host
    assert DISK_TEXT in out  # the disk came along
    assert os.path.isdir(_guest_dir(source, server_id) + "_resize")
    assert cloud.api.post(f"/servers/{server_id}/action",
                          json={"confirmResize": None}).status_code == 204
    _settled(cloud, server_id, "ACTIVE")
    assert not os.path.exists(_guest_dir(source, server_id) + "_resize")
    assert not os.path.exists(_guest_dir(source, server_id))

    action(cloud, server_id, {"resize": {"flavorRef": MICRO}})
    _settled(cloud, server_id, "VERIFY_RESIZE")
    grown = wait_console(cloud, server_id, MARKER)
    mem_kb = int(grown.rsplit("mem_kb=", 1)[1].split()[0])
    assert mem_kb > 150 * 1024  # the guest sees the new flavor's memory
    action(cloud, server_id, {"revertResize": None})
    reverted = _settled(cloud, server_id, "ACTIVE")
    assert reverted["OS-EXT-SRV-ATTR:host"] == target
    assert reverted["OS-EXT-STS:power_state"] == 1
    wait_console(cloud, server_id, MARKER, 2)  # its own console: booted again from its disk


def _live(cloud, server_id) -> None:
    response = cloud.api.post(f"/servers/{server_id}/action", headers=LIVE, json={
        "os-migrateLive": {"host": None, "block_migration": "auto"}})
    assert response.status_code == 202, response.text


def _uptime(out: str) -> float:
    return float(out.rsplit("uptime=", 1)[1].split()[0])


def test_live_migration_keeps_the_guest_running(two_qemu_hosts):
    """No reboot: the console that arrives is the guest's own (one boot), and the guest
    answers a crash-dump NMI on its new host."""
    cloud = two_qemu_hosts
    server_id = cloud.boot("live", flavor=NANO)
    wait_settled(cloud, server_id, "ACTIVE", 1)
    wait_console(cloud, server_id, MARKER)
    source = _host(cloud, server_id)

    _live(cloud, server_id)
    moved = _settled(cloud, server_id, "ACTIVE")
    assert moved["OS-EXT-SRV-ATTR:host"] != source
    assert moved["OS-EXT-STS:power_state"] == 1
    assert not os.path.exists(_guest_dir(source, server_id))
    dumped = cloud.api.post(f"/servers/{server_id}/action", json={"trigger_crash_dump": None},
                            headers={"X-OpenStack-Nova-API-Version": "2.17"})
    assert dumped.status_code == 202, dumped.text
    out = wait_console(cloud, server_id, "NMI received")  # the same guest, still running
    assert out.count(MARKER) == 0  # a new console file: no boot on this host
    # the migration is completed just after the server is idle on its new host, as Nova
    cloud.wait(lambda: [m["status"] for m in cloud.api.get(
        "/os-migrations", params={"instance_uuid": server_id}).json()["migrations"]] == [
        "completed"])


def test_live_migration_aborted_and_forced_on_real_guests(two_qemu_hosts, conf):
    cloud = two_qemu_hosts
    server_id = cloud.boot("steered", flavor=NANO)
    wait_settled(cloud, server_id, "ACTIVE", 1)
    wait_console(cloud, server_id, MARKER)
    source = _host(cloud, server_id)
    compute = cloud.compute(source)
    guest = compute.driver._guest(server_id)
    # a copy of the guest's tens of MiB that takes longer than this test
    conf.set_override("live_migration_bandwidth", 1, group="libvirt")

    def running():
        return cloud.wait(lambda: next((m for m in cloud.api.get(
            f"/servers/{server_id}/migrations", headers=LIVE).json()["migrations"]
            if m["status"] == "running"), None), timeout=60)

    _live(cloud, server_id)
    record = running()
    cloud.wait(lambda: guest.qmp("query-migrate").get("status") == "active", timeout=60)
    assert cloud.api.delete(f"/servers/{server_id}/migrations/{record['id']}",
                            headers=LIVE).status_code == 202
    back = _settled(cloud, server_id, "ACTIVE")
    assert (back["OS-EXT-SRV-ATTR:host"], back["OS-EXT-STS:power_state"]) == (source, 1)
    assert guest.status() == "running"

    # a copy that does not end until forced: the force pauses the guest (a paused guest
    # dirties no memory, so a downtime of 0 is reached; a TCG guest is paused from the
    # start), then the copy may go fast
    guest.qmp("migrate-set-parameters", **{"downtime-limit": 0})
    _live(cloud, server_id)
    record = running()
    cloud.wait(lambda: guest.qmp("query-migrate").get("status") == "active", timeout=60)
    assert cloud.api.post(f"/servers/{server_id}/migrations/{record['id']}/action",
                          headers=LIVE, json={"force_complete": None}).status_code == 202
    cloud.wait(lambda: _paused_or_gone(guest), timeout=60)
    with contextlib.suppress(QMPError):  # gone: the paused copy ended already
        guest.qmp("migrate-set-parameters", **{"max-bandwidth": 1 << 30})
    moved = _settled(cloud, server_id, "ACTIVE")
    assert (moved["OS-EXT-SRV-ATTR:host"] != source, moved["OS-EXT-STS:power_state"]) == (
        True, 1)  # resumed on the destination
    forced = [a for a in actions.actions_get(server_id)
              if a["action"] == "live_migration_force_complete"]
    assert {e["event"]: e["result"] for e in forced[-1]["events"]} == {
        "compute_live_migration_force_complete": "Success"}


def _paused_or_gone(guest) -> bool:
    """The source guest paused by the force, or already gone: with a downtime limit of
    0 the copy ends only once it is paused, and may end before a poll sees it so."""
    try:
        return guest.status() == "paused"
    except QMPError:
        return True


def test_evacuate_rebuilds_elsewhere_and_the_returning_host_cleans_up(two_qemu_hosts):
    """The first compute stops (its guest runs on, unmanaged) and is forced down; the
    server is rebuilt on the other from its image; back, the first one destroys its
    leftover guest (Nova's _destroy_evacuated_instances)."""
    cloud = two_qemu_hosts
    server_id = cloud.boot("stranded", flavor=NANO)
    wait_settled(cloud, server_id, "ACTIVE", 1)
    wait_console(cloud, server_id, MARKER)
    source = _host(cloud, server_id)
    failed = next(s for s in cloud.aio.services if s.host == source
                  and s.binary == "novalite-compute")
    failed.stop()
    cloud.aio.services.remove(failed)
    down = cloud.api.put(f"/os-services/{service_id(cloud, source)}",
                         json={"forced_down": True}, headers=LIVE)
    assert down.status_code == 200, down.text

    evacuated = cloud.api.post(f"/servers/{server_id}/action", json={"evacuate": {}},
                               headers=LIVE)
    assert evacuated.status_code == 200, evacuated.text
    moved = _settled(cloud, server_id, "ACTIVE")
    assert moved["OS-EXT-SRV-ATTR:host"] != source
    wait_console(cloud, server_id, MARKER)  # a new guest, booted from the image
    assert os.path.isdir(_guest_dir(source, server_id))  # the old one, left behind

    back = assembly.compute(source, driver_args(source))
    back.start()
    cloud.aio.services.insert(0, back)
    cloud.wait(lambda: not os.path.exists(_guest_dir(source, server_id)), timeout=60)
    assert cloud.api.put(f"/os-services/{service_id(cloud, source)}",
                         json={"forced_down": False}, headers=LIVE).status_code == 200


def test_shelved_then_unshelved_onto_the_other_host(two_qemu_hosts):
    cloud = two_qemu_hosts
    server_id = cloud.boot("parked", flavor=NANO)
    wait_settled(cloud, server_id, "ACTIVE", 1)
    wait_console(cloud, server_id, MARKER)
    source = _host(cloud, server_id)
    other = next(s.host for s in cloud.aio.services
                 if s.binary == "novalite-compute" and s.host != source)
    action(cloud, server_id, {"shelve": None})
    wait_settled(cloud, server_id, "SHELVED_OFFLOADED", 4)
    assert not os.path.exists(_guest_dir(source, server_id))
    unshelved = cloud.api.post(f"/servers/{server_id}/action",
                               json={"unshelve": {"host": other}},
                               headers={"X-OpenStack-Nova-API-Version": "2.91"})
    assert unshelved.status_code == 202, unshelved.text
    landed = wait_settled(cloud, server_id, "ACTIVE", 1)
    assert landed["OS-EXT-SRV-ATTR:host"] == other
    assert DISK_TEXT in wait_console(cloud, server_id, MARKER)  # from its shelve image
