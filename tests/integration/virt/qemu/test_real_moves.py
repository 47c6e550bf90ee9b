"""Real QEMU guests moved between two QEMU computes sharing this machine, each with its
own instances directory (no shared storage: a cold move's disk goes over NBD): a cold
migration confirmed, a resize that gives the guest more memory, then reverted to the
original guest on its own disk."""

from __future__ import annotations

import contextlib
import os
import signal

import pytest

from novalite.all_in_one import driver_args
from novalite.virt.qemu.guest_image import DISK_TEXT, MARKER
from tests import services
from tests.integration.virt.qemu.test_real_guests import (
    NANO,
    action,
    wait_console,
    wait_settled,
)

MICRO = "84"  # 192 MiB


@pytest.fixture
def two_qemu_hosts(cloud_factory, conf):
    services.require_qemu()
    conf.set_override("compute_driver", "qemu")
    conf.set_override("hosts", 2, group="qemu")
    conf.set_override("virt_type", "qemu", group="libvirt")
    conf.set_override("shutdown_timeout", 30)
    conf.set_override("shutdown_retry_interval", 10, group="compute")
    cloud = cloud_factory(hosts=2)
    yield cloud
    for server in cloud.api.get("/servers").json()["servers"]:
        cloud.api.delete(f"/servers/{server['id']}")
        cloud.wait_gone(server["id"])
    for host in (s.host for s in cloud.aio.services if s.binary == "novalite-compute"):
        directory = driver_args(host)["instances_dir"]
        for pidfile in _pidfiles(directory):  # never leave a guest running
            with contextlib.suppress(OSError, ValueError), open(pidfile) as found:
                os.kill(int(found.read()), signal.SIGKILL)


def _pidfiles(directory: str) -> list[str]:
    return [os.path.join(directory, d, name) for d in os.listdir(directory)
            for name in ("qemu.pid", "nbd.pid") if os.path.exists(os.path.join(directory, d, name))]


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
