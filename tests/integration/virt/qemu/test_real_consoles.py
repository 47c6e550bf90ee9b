"""A real guest's remote consoles (TCG), asked of the qemu driver as the compute manager
asks it: QEMU's VNC server speaks RFB, and the first serial port, a TCP listener, reaches
a shell the guest's user data runs on it while console.log fills as before; the URLs
the API answers open both through its console proxy. Both come
back when the guest's QEMU is replaced (suspend and resume: no second boot) and are found
by a restarted compute service's driver."""

from __future__ import annotations

import base64
import socket

import pytest
from websockets.sync.client import connect

from novalite import exception
from novalite.objects.console import ConsoleEndpoint
from novalite.objects.instance import Instance
from novalite.virt.qemu.driver import QemuDriver
from novalite.virt.qemu.guest_image import MARKER, USERDATA_MARKER
from tests.cloud import Cloud
from tests.console_urls import websocket_url
from tests.integration.virt.qemu.test_real_guests import (
    BOOT_TIMEOUT,
    NANO,
    action,
    qemu_cloud,  # noqa: F401 (fixture)
    wait_console,
    wait_settled,
)

# The guest image runs no shell on its console: its user data starts one there (what is
# typed before it reads waits in the guest's tty).
SHELL = "#!/bin/sh\nsh < /dev/ttyS0 > /dev/ttyS0 2>&1 &\n"
COMMAND, ANSWER = "echo CONSOLE-$((6*7))", "CONSOLE-42"  # the echoed line is not the answer


def _driver(cloud: Cloud) -> QemuDriver:
    compute = next(s for s in cloud.aio.services if s.binary == "novalite-compute")
    return compute.manager.driver


def _rfb_version(endpoint: ConsoleEndpoint) -> bytes:
    with socket.create_connection((endpoint.host, endpoint.port), timeout=30) as conn:
        version = b""
        while len(version) < 12:
            chunk = conn.recv(12 - len(version))
            assert chunk, f"the VNC server hung up after {version!r}"
            version += chunk
    return version


def _ask(endpoint: ConsoleEndpoint) -> list[str]:
    """The lines the serial console shows once COMMAND, typed on it, is answered."""
    with socket.create_connection((endpoint.host, endpoint.port),
                                  timeout=BOOT_TIMEOUT) as conn:
        conn.sendall(f"{COMMAND}\n".encode())
        seen = b""
        while f"\n{ANSWER}\r\n".encode() not in seen:
            chunk = conn.recv(4096)
            assert chunk, f"the serial console hung up after {seen!r}"
            seen += chunk
    return seen.decode(errors="replace").splitlines()


def _console_url(cloud: Cloud, server_id: str, protocol: str, type_: str) -> str:
    answered = cloud.api.post(f"/servers/{server_id}/remote-consoles",
                              headers={"X-OpenStack-Nova-API-Version": "2.6"},
                              json={"remote_console": {"protocol": protocol, "type": type_}})
    assert answered.status_code == 200, answered.text
    return answered.json()["remote_console"]["url"]


def _through_the_proxy(cloud: Cloud, server_id: str) -> None:
    """As a user opens them: the URLs the API answers, through its console proxy."""
    with connect(websocket_url(_console_url(cloud, server_id, "vnc", "novnc"))) as ws:
        assert ws.recv(timeout=30) == b"RFB 003.008\n"
    with connect(_console_url(cloud, server_id, "serial", "serial")) as ws:
        ws.send(f"{COMMAND}\n".encode())
        seen = b""
        while f"\n{ANSWER}\r\n".encode() not in seen:
            seen += ws.recv(timeout=BOOT_TIMEOUT)


def test_a_guests_vnc_and_serial_consoles(qemu_cloud, conf):  # noqa: F811 (the fixture)
    conf.set_override("enabled", True, group="serial_console")
    cloud = qemu_cloud
    server_id = cloud.boot("consoles", flavor=NANO, config_drive=True,
                           user_data=base64.b64encode(SHELL.encode()).decode())
    wait_settled(cloud, server_id, "ACTIVE", 1)
    wait_console(cloud, server_id, f"{USERDATA_MARKER} rc=0")
    driver, instance = _driver(cloud), Instance(uuid=server_id)

    vnc = driver.get_vnc_console(None, instance)
    assert vnc.host == "127.0.0.1" and _rfb_version(vnc) == b"RFB 003.008\n"
    serial = driver.get_serial_console(None, instance)
    assert (serial.host, 10000 <= serial.port <= 20000) == ("127.0.0.1", True)
    assert ANSWER in _ask(serial)
    logged = wait_console(cloud, server_id, ANSWER)  # logged as well, client or not
    assert logged.count(MARKER) == 1

    _through_the_proxy(cloud, server_id)

    restarted = QemuDriver(instances_dir=driver.instances_dir)  # finds them from QEMU
    assert restarted.get_vnc_console(None, instance) == vnc
    assert restarted.get_serial_console(None, instance) == serial

    action(cloud, server_id, {"suspend": None})
    wait_settled(cloud, server_id, "SUSPENDED", 7)
    with pytest.raises(exception.ConsoleTypeUnavailable):  # no QEMU, no console
        driver.get_serial_console(None, instance)
    action(cloud, server_id, {"resume": None})
    wait_settled(cloud, server_id, "ACTIVE", 1)
    assert _rfb_version(driver.get_vnc_console(None, instance)) == b"RFB 003.008\n"
    assert ANSWER in _ask(driver.get_serial_console(None, instance))
    assert wait_console(cloud, server_id, ANSWER, 2).count(MARKER) == 1  # the same boot
