"""The issue's acceptance for real guests: with `--driver qemu`, the unmodified `openstack`
CLI boots novalite-tiny on m1.nano and `console log show` proves the machine came up, got
its address by DHCP, and answers on a floating IP once a security group rule lets it."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess

import pytest

from novalite.datapath import names
from novalite.virt.qemu.guest_image import (
    DISK_MARKER,
    DISK_TEXT,
    MARKER,
    NET_MARKER,
    POWEROFF_MARKER,
)
from tests import cpus, services
from tests.acceptance.cli import Cli
from tests.acceptance.conftest import all_in_one
from tests.waiting import wait_for


@pytest.fixture(scope="module")
def qemu_cloud(tmp_path_factory):
    services.require_qemu()
    state_dir = tmp_path_factory.mktemp("qemu-cloud")
    try:
        with all_in_one(state_dir, "--driver", "qemu") as started:
            yield started
    finally:  # guests outlive the all-in-one by design; a failed test must not leave any
        for pidfile in state_dir.glob("instances/*/qemu.pid"):
            with contextlib.suppress(OSError, ValueError):
                os.kill(int(pidfile.read_text()), signal.SIGKILL)


def wait_console(cli: Cli, server: str, text: str, count: int = 1) -> str:
    return wait_for(lambda: (log := cli.ok("console", "log", "show", server)).count(text)
                    >= count and log, timeout=120, interval=1,
                    what=f"{count} x {text} on {server}'s console")


def _reachable(namespace: str, address: str) -> bool:
    return subprocess.run(["ip", "netns", "exec", namespace, "busybox", "ping", "-c", "1",
                           "-W", "2", address], capture_output=True).returncode == 0


def _networked(cloud, demo: Cli) -> None:
    """vm1 is on the demo project's only network, `private`: its DHCP client configured
    the address the server shows; a floating IP reaches it from the outside once its
    security group lets ICMP in."""
    fixed = demo.json("server", "show", "vm1")["addresses"]["private"][0]
    wait_console(demo, "vm1", f"{NET_MARKER} eth0={fixed}/26")
    floating = demo.json("floating", "ip", "create", "public")["floating_ip_address"]
    demo.ok("server", "add", "floating", "ip", "vm1", floating)
    outside = f"{names.derived_prefix(str(cloud.state_dir))}-outside"
    wait_for(lambda: outside in subprocess.run(["ip", "netns", "list"], capture_output=True,
                                               text=True).stdout, timeout=30, interval=0.5,
             what="the outside namespace")
    assert not _reachable(outside, floating)  # the default group lets no one in
    demo.ok("security", "group", "rule", "create", "--protocol", "icmp", "default")
    wait_for(lambda: _reachable(outside, floating), timeout=30, interval=0.5,
             what=f"the floating IP {floating} answering")
    demo.ok("server", "remove", "floating", "ip", "vm1", floating)


def _runs_on_every_cpu(cloud, server: str) -> None:
    """The all-in-one's Python threads share one CPU ([DEFAULT] interpreter_cpu = auto);
    the guest it started does not. A thread starting a program (`ip`, `qemu-img`)
    has every CPU for that moment, so the check waits for a moment without one."""
    every = cpus.of_process(os.getpid())
    pinned = wait_for(lambda: found if len(found := cpus.of_process(cloud.pid)) == 1
                      else None, timeout=30, interval=0.2, what="every thread on one CPU")
    assert len(os.sched_getaffinity(0)) == 1 or pinned != every
    qemu = int((cloud.state_dir / "instances" / server / "qemu.pid").read_text())
    assert cpus.of_process(qemu) == every


def test_openstack_cli_boots_a_real_guest(qemu_cloud):
    demo = Cli(qemu_cloud.clouds_yaml, "novalite")
    admin = Cli(qemu_cloud.clouds_yaml, "novalite-admin")
    server = demo.json("server", "create", "--image", "novalite-tiny", "--flavor", "m1.nano",
                       "--wait", "vm1")
    assert server["status"] == "ACTIVE" and server["OS-EXT-STS:power_state"] == 1
    assert "mem_kb=" in wait_console(demo, "vm1", MARKER)
    _runs_on_every_cpu(qemu_cloud, demo.json("server", "show", "vm1")["id"])
    hypervisor = admin.json("hypervisor", "list")[0]
    assert hypervisor["Hypervisor Type"] == "QEMU"
    _networked(qemu_cloud, demo)

    demo.ok("server", "stop", "vm1")
    demo.wait_status("vm1", "SHUTOFF")
    assert POWEROFF_MARKER in demo.ok("console", "log", "show", "vm1")
    demo.ok("server", "start", "vm1")
    demo.wait_status("vm1", "ACTIVE")
    wait_console(demo, "vm1", MARKER, 2)

    demo.ok("server", "delete", "--wait", "vm1")
    assert demo.json("server", "list") == []


def test_openstack_cli_moves_real_guests_between_two_qemu_computes(tmp_path):
    """`--driver qemu --hosts 2`: live migration, cold migration confirmed, a resize
    reverted, with the CLI's own --wait."""
    services.require_qemu()
    state_dir = tmp_path / "qemu-pair"
    state_dir.mkdir()
    try:
        with all_in_one(state_dir, "--driver", "qemu", "--hosts", "2") as cloud:
            demo = Cli(cloud.clouds_yaml, "novalite")
            admin = Cli(cloud.clouds_yaml, "novalite-admin")
            server = demo.json("server", "create", "--image", "novalite-tiny", "--flavor",
                               "m1.nano", "--wait", "mover")["id"]
            wait_console(demo, server, MARKER)

            def host() -> str:
                return admin.json("server", "show", server)["OS-EXT-SRV-ATTR:host"]

            first = host()
            admin.ok("server", "migrate", "--live-migration", "--wait", server)
            assert host() != first
            assert demo.json("server", "show", server)["status"] == "ACTIVE"
            admin.ok("server", "migrate", "--wait", server)
            assert host() == first
            admin.ok("server", "resize", "confirm", server)
            demo.wait_status(server, "ACTIVE")
            demo.ok("server", "resize", "--flavor", "m1.micro", "--wait", server)
            demo.ok("server", "resize", "revert", server)
            demo.wait_status(server, "ACTIVE")
            assert "m1.nano" in str(demo.json("server", "show", server)["flavor"])
            demo.ok("server", "delete", "--wait", server)
    finally:
        for pidfile in state_dir.glob("instances/*/*/qemu.pid"):
            with contextlib.suppress(OSError, ValueError):
                os.kill(int(pidfile.read_text()), signal.SIGKILL)


def test_openstack_cli_boots_a_real_guest_from_a_volume(qemu_cloud):
    """`server create --boot-from-volume`: the compute has the volume made from the
    image, and the guest's root disk (/dev/vda, which its init mounts) is that volume."""
    demo = Cli(qemu_cloud.clouds_yaml, "novalite")
    server = demo.boot("--boot-from-volume", "1", "--image", "novalite-tiny", "--flavor",
                       "m1.nano", "--nic", "none", "bfv1")
    (root,) = server["volumes_attached"]
    assert f"{DISK_MARKER} {DISK_TEXT}" in wait_console(demo, "bfv1", MARKER)
    attachment = demo.json("volume", "show", root["id"])["attachments"][0]
    assert (attachment["server_id"], attachment["device"]) == (server["id"], "/dev/vda")
    demo.delete("bfv1")
    wait_for(lambda: demo.json("volume", "show", root["id"])["status"] == "available",
             timeout=60, interval=0.5, what="the boot volume available again")
    demo.ok("volume", "delete", root["id"])
