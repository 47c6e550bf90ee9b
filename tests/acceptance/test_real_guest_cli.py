"""The issue's acceptance for real guests: with `--driver qemu`, the unmodified `openstack`
CLI boots novalite-tiny on m1.nano and `console log show` proves the machine came up."""

from __future__ import annotations

import contextlib
import os
import signal

import pytest

from novalite.virt.qemu.guest_image import MARKER, POWEROFF_MARKER
from tests import services
from tests.acceptance.conftest import all_in_one
from tests.acceptance.test_openstack_cli import Cli
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


def test_openstack_cli_boots_a_real_guest(qemu_cloud):
    demo = Cli(qemu_cloud.clouds_yaml, "novalite")
    admin = Cli(qemu_cloud.clouds_yaml, "novalite-admin")
    server = demo.json("server", "create", "--image", "novalite-tiny", "--flavor", "m1.nano",
                       "--wait", "vm1")
    assert server["status"] == "ACTIVE" and server["OS-EXT-STS:power_state"] == 1
    assert "mem_kb=" in wait_console(demo, "vm1", MARKER)
    hypervisor = admin.json("hypervisor", "list")[0]
    assert hypervisor["Hypervisor Type"] == "QEMU"

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
