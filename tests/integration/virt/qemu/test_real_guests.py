"""Real QEMU guests through the whole cloud: API -> scheduler -> compute -> QEMU.

One compute service with the qemu driver (TCG here) boots the default guest
(novalite-tiny: a Debian cloud kernel and a busybox initramfs) with the 128 MiB m1.nano
flavor, and each power action is checked against what the guest itself prints on its
serial console.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess

import pytest

from novalite.db.api import actions
from novalite.service import assembly
from novalite.virt.qemu import images
from novalite.virt.qemu.guest_image import MARKER
from tests import services
from tests.cloud import Cloud
from tests.functional.tempest_schemas import check

NANO = "42"
BOOT_TIMEOUT = 120  # TCG on a loaded 2-core host


@pytest.fixture
def qemu_cloud(cloud_factory, conf):
    services.require_qemu()
    conf.set_override("compute_driver", "qemu")
    conf.set_override("virt_type", "qemu", group="libvirt")
    conf.set_override("shutdown_timeout", 30)
    conf.set_override("shutdown_retry_interval", 10, group="compute")
    conf.set_override("max_concurrent_builds", 2)
    cloud = cloud_factory(hosts=1)
    yield cloud
    for server in cloud.api.get("/servers").json()["servers"]:
        cloud.api.delete(f"/servers/{server['id']}")
        cloud.wait_gone(server["id"])
    for leftover in os.listdir(images.instances_path()):  # never leave a guest running
        with contextlib.suppress(OSError, ValueError):
            os.kill(qemu_pid(leftover), signal.SIGKILL)


def console(cloud: Cloud, server_id: str) -> str:
    response = cloud.api.post(f"/servers/{server_id}/action",
                              json={"os-getConsoleOutput": {"length": None}})
    assert response.status_code == 200, response.text
    return response.json()["output"]


def wait_console(cloud: Cloud, server_id: str, text: str, count: int = 1) -> str:
    """The console's complete lines once `text` is on `count` of them: the guest may be
    mid-line when the log is read, and a marker's line is checked whole."""
    seen = [""]

    def lines() -> str:
        seen[0] = out = console(cloud, server_id)
        return out[:out.rfind("\n") + 1]
    try:
        return cloud.wait(lambda: (out := lines()).count(text) >= count and out,
                          timeout=BOOT_TIMEOUT)
    except AssertionError as missed:
        server = cloud.server(server_id)
        raise AssertionError(
            f"{text!r} not {count} time(s) on the console of {server['status']} server "
            f"{server_id} (power state {server['OS-EXT-STS:power_state']}) within "
            f"{BOOT_TIMEOUT}s; the console ends: {seen[0][-1500:]!r}") from missed


def action(cloud: Cloud, server_id: str, body: dict) -> None:
    response = cloud.api.post(f"/servers/{server_id}/action", json=body)
    assert response.status_code == 202, response.text


def wait_settled(cloud: Cloud, server_id: str, status: str, power_state: int) -> dict:
    return cloud.wait(lambda: (s := cloud.server(server_id))["status"] == status
                      and s["OS-EXT-STS:power_state"] == power_state
                      and s["OS-EXT-STS:task_state"] is None and s, timeout=BOOT_TIMEOUT)


def qemu_pid(server_id: str) -> int:
    with open(os.path.join(images.instances_path(), server_id, "qemu.pid")) as pidfile:
        return int(pidfile.read())


def pid_running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def service_id(cloud: Cloud, host: str) -> str:
    listed = cloud.api.get("/os-services", params={"host": host, "binary": "novalite-compute"},
                           headers={"X-OpenStack-Nova-API-Version": "2.53"}).json()["services"]
    found: str = listed[0]["id"]
    return found


def check_diagnostics(cloud: Cloud, server_id: str) -> None:
    """What QEMU and /proc say of the running guest: it has used CPU and read its disk."""
    found = check(cloud.api.get(f"/servers/{server_id}/diagnostics",
                                headers={"OpenStack-API-Version": "compute 2.48"}),
                  "v2_48", "servers", "show_server_diagnostics")
    assert (found["state"], found["hypervisor"], found["num_cpus"]) == ("running", "qemu", 1)
    assert found["cpu_details"][0]["time"] > 0
    assert found["disk_details"] and found["disk_details"][0]["read_bytes"] > 0
    assert found["memory_details"]["maximum"] == 128 and found["uptime"] >= 0
    legacy = cloud.api.get(f"/servers/{server_id}/diagnostics").json()
    assert legacy["cpu0_time"] > 0 and legacy["memory"] == 128 * 1024


def test_guest_lifecycle(qemu_cloud):
    cloud = qemu_cloud
    server_id = cloud.boot("real", flavor=NANO)
    server = wait_settled(cloud, server_id, "ACTIVE", 1)
    assert server["OS-EXT-SRV-ATTR:host"]
    out = wait_console(cloud, server_id, MARKER)
    assert "mem_kb=" in out
    check_diagnostics(cloud, server_id)

    action(cloud, server_id, {"os-stop": None})  # ACPI: the guest powers itself off
    wait_settled(cloud, server_id, "SHUTOFF", 4)
    assert "NOVALITE-GUEST-ACPI-POWEROFF" in console(cloud, server_id)

    action(cloud, server_id, {"os-start": None})
    wait_settled(cloud, server_id, "ACTIVE", 1)
    wait_console(cloud, server_id, MARKER, 2)

    action(cloud, server_id, {"reboot": {"type": "SOFT"}})
    wait_settled(cloud, server_id, "ACTIVE", 1)
    wait_console(cloud, server_id, MARKER, 3)
    assert console(cloud, server_id).count("NOVALITE-GUEST-ACPI-POWEROFF") == 2

    action(cloud, server_id, {"reboot": {"type": "HARD"}})
    wait_settled(cloud, server_id, "ACTIVE", 1)
    wait_console(cloud, server_id, MARKER, 4)

    action(cloud, server_id, {"pause": None})
    wait_settled(cloud, server_id, "PAUSED", 3)
    action(cloud, server_id, {"unpause": None})
    wait_settled(cloud, server_id, "ACTIVE", 1)

    dumped = cloud.api.post(f"/servers/{server_id}/action", json={"trigger_crash_dump": None},
                            headers={"X-OpenStack-Nova-API-Version": "2.17"})
    assert dumped.status_code == 202, dumped.text
    wait_console(cloud, server_id, "NMI received")  # the kernel's word; it carries on
    wait_settled(cloud, server_id, "ACTIVE", 1)

    # The tiny image declares no guest agent, so, as under Nova's libvirt driver, no
    # password can be set in it.
    refused = cloud.api.post(f"/servers/{server_id}/action",
                             json={"changePassword": {"adminPass": "x"}})
    assert (refused.status_code, refused.json()["conflictingRequest"]["message"]) == (
        409, "QEMU guest agent is not enabled")
    wait_settled(cloud, server_id, "ACTIVE", 1)

    pid = qemu_pid(server_id)
    action(cloud, server_id, {"suspend": None})
    wait_settled(cloud, server_id, "SUSPENDED", 7)
    assert not pid_running(pid)  # a suspended guest's memory is on disk, not in QEMU
    action(cloud, server_id, {"resume": None})
    wait_settled(cloud, server_id, "ACTIVE", 1)
    assert console(cloud, server_id).count(MARKER) == 4  # resumed, not rebooted

    pid = qemu_pid(server_id)
    image_id = cloud.server(server_id)["image"]["id"]
    action(cloud, server_id, {"rebuild": {"imageRef": image_id}})
    wait_settled(cloud, server_id, "ACTIVE", 1)
    assert not pid_running(pid)  # a new guest, on new disks, with a new console
    assert wait_console(cloud, server_id, MARKER).count(MARKER) == 1

    pid = qemu_pid(server_id)
    directory = os.path.join(images.instances_path(), server_id)
    assert cloud.api.delete(f"/servers/{server_id}").status_code == 204
    cloud.wait_gone(server_id)
    assert not pid_running(pid)
    assert not os.path.exists(directory)
    assert cloud.api.get("/os-hypervisors/detail").json()["hypervisors"][0][
        "running_vms"] == 0
    placement = f"{cloud.base_url}/placement/resource_providers"
    provider = cloud.api.get(placement).json()["resource_providers"][0]["uuid"]
    assert cloud.api.get(f"{placement}/{provider}/usages").json()["usages"] == \
        {"VCPU": 0, "MEMORY_MB": 0, "DISK_GB": 0}


def test_restarted_compute_adopts_its_guests_and_notices_a_crash(qemu_cloud):
    cloud = qemu_cloud
    server_id = cloud.boot("adopted", flavor=NANO)
    wait_settled(cloud, server_id, "ACTIVE", 1)
    wait_console(cloud, server_id, MARKER)
    pid = qemu_pid(server_id)

    old = next(s for s in cloud.aio.services if s.binary == "novalite-compute")
    old.stop()
    cloud.aio.services.remove(old)
    assert pid_running(pid)  # guests outlive their compute service
    new = assembly.compute(old.host)
    new.start()
    cloud.aio.services.insert(0, new)
    assert server_id in new.manager.driver.list_instances()
    assert cloud.server(server_id)["OS-EXT-STS:power_state"] == 1

    os.kill(pid, signal.SIGKILL)  # QEMU dies under the guest
    wait_settled(cloud, server_id, "SHUTOFF", 4)
    # os-instance-actions is not served yet: the record the API would show
    stops = [a for a in actions.actions_get(server_id) if a["action"] == "stop"]
    assert stops and {e["event"] for e in stops[-1]["events"]} == {"compute_stop_instance"}

    action(cloud, server_id, {"os-start": None})  # from its disk again
    wait_settled(cloud, server_id, "ACTIVE", 1)
    wait_console(cloud, server_id, MARKER, 2)


def test_a_guest_whose_server_was_deleted_while_its_compute_was_down_is_reaped(qemu_cloud):
    """Deleted while its compute is down (forced down: the API deletes the server itself,
    as Nova's local delete), the server is gone at once and its guest runs on, unmanaged;
    the compute, back, destroys it (running_deleted_instance_action = reap)."""
    cloud = qemu_cloud
    server_id = cloud.boot("zombie", flavor=NANO)
    wait_settled(cloud, server_id, "ACTIVE", 1)
    pid = qemu_pid(server_id)
    old = next(s for s in cloud.aio.services if s.binary == "novalite-compute")
    old.stop()
    cloud.aio.services.remove(old)
    microversion = {"X-OpenStack-Nova-API-Version": "2.53"}
    service = f"/os-services/{service_id(cloud, old.host)}"
    assert cloud.api.put(service, json={"forced_down": True},
                         headers=microversion).status_code == 200
    assert cloud.api.delete(f"/servers/{server_id}").status_code == 204
    cloud.wait_gone(server_id)
    assert pid_running(pid)

    new = assembly.compute(old.host)
    new.start()
    cloud.aio.services.insert(0, new)
    cloud.wait(lambda: not pid_running(pid), timeout=60)
    guest_dir = os.path.join(images.instances_path(), server_id)
    cloud.wait(lambda: not os.path.exists(guest_dir), timeout=10)  # its files went too
    assert server_id not in new.manager.driver.list_instances()
    assert cloud.api.put(service, json={"forced_down": False},
                         headers=microversion).status_code == 200


def _upload(cloud: Cloud, name: str, path: str, disk_format: str) -> str:
    image_api = f"{cloud.base_url}/image/v2/images"
    created = cloud.api.post(image_api, json={"name": name, "disk_format": disk_format,
                                              "container_format": "bare"})
    assert created.status_code == 201, created.text
    image_id = created.json()["id"]
    with open(path, "rb") as data:
        uploaded = cloud.api.put(f"{image_api}/{image_id}/file", content=data.read(),
                                 headers={"Content-Type": "application/octet-stream"})
    assert uploaded.status_code == 204, uploaded.text
    return image_id


@pytest.mark.parametrize("kind, fault", [
    ("blank", "is not bootable"),
    ("huge", "Flavor's disk is too small for requested image"),
])
def test_unusable_image_fails_the_build_with_a_clear_fault(qemu_cloud, tmp_path, kind, fault):
    cloud = qemu_cloud
    path = str(tmp_path / kind)
    if kind == "blank":
        with open(path, "wb") as out:
            out.truncate(1024 * 1024)
        image_id = _upload(cloud, kind, path, "raw")
    else:
        subprocess.run(["qemu-img", "create", "-q", "-f", "qcow2", path, "2G"], check=True)
        image_id = _upload(cloud, kind, path, "qcow2")
    server_id = cloud.boot(kind, flavor=NANO, imageRef=image_id)
    server = cloud.wait(lambda: (s := cloud.server(server_id))["status"] == "ERROR" and s,
                        timeout=60)
    assert fault in server["fault"]["message"]
    assert not os.path.exists(os.path.join(images.instances_path(), server_id))


def test_host_boot_brings_back_guests_that_should_run(qemu_cloud, conf):
    """As after a host reboot: the guest's QEMU is gone while its compute is down; with
    [DEFAULT] resume_guests_state_on_host_boot the service starts it again."""
    cloud = qemu_cloud
    server_id = cloud.boot("resumed", flavor=NANO)
    wait_settled(cloud, server_id, "ACTIVE", 1)
    wait_console(cloud, server_id, MARKER)

    old = next(s for s in cloud.aio.services if s.binary == "novalite-compute")
    old.stop()
    cloud.aio.services.remove(old)
    pid = qemu_pid(server_id)
    os.kill(pid, signal.SIGKILL)
    cloud.wait(lambda: not pid_running(pid))
    conf.set_override("resume_guests_state_on_host_boot", True)
    new = assembly.compute(old.host)
    new.start()
    cloud.aio.services.insert(0, new)

    assert pid_running(qemu_pid(server_id))
    wait_settled(cloud, server_id, "ACTIVE", 1)
    wait_console(cloud, server_id, MARKER, 2)


def test_a_snapshot_of_a_running_guest_boots_a_new_one(qemu_cloud):
    cloud = qemu_cloud
    server_id = cloud.boot("original", flavor=NANO)
    wait_settled(cloud, server_id, "ACTIVE", 1)
    wait_console(cloud, server_id, MARKER)
    response = cloud.api.post(f"/servers/{server_id}/action", json={
        "createImage": {"name": "snap"}}, headers={"OpenStack-API-Version": "compute 2.45"})
    assert response.status_code == 202, response.text
    image_id = response.json()["image_id"]
    snapshot = cloud.wait(lambda: (i := cloud.api.get(
        f"{cloud.base_url}/image/v2/images/{image_id}").json())["status"] == "active" and i,
        timeout=BOOT_TIMEOUT)
    assert snapshot["disk_format"] == "qcow2" and snapshot["size"] > 0
    wait_settled(cloud, server_id, "ACTIVE", 1)  # paused for the copy, running again
    # the copy's image says it runs a guest agent: it gets the agent's channel, but the
    # tiny guest runs no agent, so a password cannot be set (Nova's 501 for an agent that
    # does not answer; the first guest, made without the channel, answered 409)
    cloud.api.patch(f"{cloud.base_url}/image/v2/images/{image_id}", json=[
        {"op": "add", "path": "/hw_qemu_guest_agent", "value": "yes"}],
        headers={"Content-Type": "application/openstack-images-v2.1-json-patch"}
    ).raise_for_status()
    copy = cloud.boot("copy", flavor=NANO, imageRef=image_id)
    wait_settled(cloud, copy, "ACTIVE", 1)
    wait_console(cloud, copy, MARKER)
    with open(f"/proc/{qemu_pid(copy)}/cmdline", "rb") as cmdline:
        assert b"name=org.qemu.guest_agent.0" in cmdline.read()
    refused = cloud.api.post(f"/servers/{copy}/action",
                             json={"changePassword": {"adminPass": "x"}})
    assert refused.status_code == 501, refused.text
    assert refused.json()["notImplemented"]["message"] == "Unable to set password on instance"
    wait_settled(cloud, copy, "ACTIVE", 1)


def test_a_real_guest_shelved_offloaded_and_unshelved_boots_from_its_image(qemu_cloud):
    cloud = qemu_cloud
    server_id = cloud.boot("parked", flavor=NANO)
    wait_settled(cloud, server_id, "ACTIVE", 1)
    wait_console(cloud, server_id, MARKER)
    pid = qemu_pid(server_id)
    action(cloud, server_id, {"shelve": None})
    offloaded = wait_settled(cloud, server_id, "SHELVED_OFFLOADED", 4)
    assert offloaded["OS-EXT-SRV-ATTR:host"] is None and not pid_running(pid)
    assert not os.path.exists(os.path.join(images.instances_path(), server_id))
    action(cloud, server_id, {"unshelve": None})
    wait_settled(cloud, server_id, "ACTIVE", 1)
    wait_console(cloud, server_id, MARKER)


def test_a_rescued_real_guest_boots_the_rescue_disk_with_its_own_second(qemu_cloud):
    cloud = qemu_cloud
    server_id = cloud.boot("broken", flavor=NANO)
    wait_settled(cloud, server_id, "ACTIVE", 1)
    wait_console(cloud, server_id, MARKER)
    guest = cloud.compute(cloud.server(server_id)["OS-EXT-SRV-ATTR:host"]).driver._guest(
        server_id)

    def drives() -> list[str]:
        found = guest.qmp("query-block")
        return [os.path.basename(d["inserted"]["file"]) for d in found if "inserted" in d]

    rescued = cloud.api.post(f"/servers/{server_id}/action", json={"rescue": None})
    assert rescued.status_code == 200 and rescued.json()["adminPass"], rescued.text
    wait_settled(cloud, server_id, "RESCUE", 1)
    wait_console(cloud, server_id, MARKER, 2)  # booted again, from the rescue disk
    assert drives() == ["disk.rescue", "disk"]
    action(cloud, server_id, {"unrescue": None})
    wait_settled(cloud, server_id, "ACTIVE", 1)
    wait_console(cloud, server_id, MARKER, 3)
    assert drives() == ["disk"]
