"""The built default guest really boots under QEMU (TCG, as on CI machines): the marker
and the disk's text reach the serial console, and an ACPI power-down stops it."""

from __future__ import annotations

import json
import socket
import subprocess
import time
from pathlib import Path

import pytest

from novalite.virt.qemu import guest_image
from tests import services
from tests.waiting import wait_for

BOOT_TIMEOUT = 60.0


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    services.require_qemu()
    return guest_image.ensure_built(str(tmp_path_factory.mktemp("guest-image")))


def _wait_for(path: Path, text: str, timeout: float) -> str:
    def log() -> str:
        return path.read_text(errors="replace") if path.exists() else ""

    try:
        return wait_for(lambda: text in (out := log()) and out, timeout=timeout, interval=0.1,
                        what=f"{text!r} on the console")
    except AssertionError as exc:
        raise AssertionError(f"{exc}: {log()!r}") from None


def _qmp(sock: Path, command: str) -> None:
    """One command over QMP's JSON lines, after the greeting and capabilities handshake."""
    with socket.socket(socket.AF_UNIX) as s:
        s.connect(str(sock))
        stream = s.makefile("rw")
        assert "QMP" in json.loads(stream.readline())
        for execute in ("qmp_capabilities", command):
            stream.write(json.dumps({"execute": execute}) + "\n")
            stream.flush()
            reply = json.loads(stream.readline())
            while "event" in reply:
                reply = json.loads(stream.readline())
            assert reply == {"return": {}}, reply


def _boot(image: guest_image.GuestImage, work: Path) -> subprocess.Popen:
    overlay = work / "disk.qcow2"
    subprocess.run(["qemu-img", "create", "-q", "-f", "qcow2", "-F", "qcow2", "-b",
                    str(image.disk), str(overlay)], check=True)
    return subprocess.Popen([
        "qemu-system-x86_64", "-accel", "tcg", "-machine", "q35", "-cpu", "qemu64",
        "-m", "128", "-smp", "1", "-kernel", str(image.kernel), "-initrd", str(image.ramdisk),
        "-append", guest_image.COMMAND_LINE, "-display", "none", "-nodefaults", "-no-reboot",
        "-drive", f"file={overlay},if=virtio",
        "-chardev", f"file,id=ser0,path={work / 'console.log'}", "-serial", "chardev:ser0",
        "-qmp", f"unix:{work / 'qmp.sock'},server=on,wait=off"])


def test_the_guest_boots_reads_its_disk_and_powers_off_on_acpi(built, tmp_path):
    qemu = _boot(built, tmp_path)
    try:
        log = _wait_for(tmp_path / "console.log", guest_image.MARKER, BOOT_TIMEOUT)
        assert f"{guest_image.DISK_MARKER} {guest_image.DISK_TEXT}" in log
        assert "mem_kb=" in log.split(guest_image.MARKER)[1]
        _qmp(tmp_path / "qmp.sock", "system_powerdown")
        _wait_for(tmp_path / "console.log", guest_image.POWEROFF_MARKER, 20)
        assert qemu.wait(timeout=20) == 0
    finally:
        if qemu.poll() is None:
            qemu.kill()
            qemu.wait()


def test_a_second_call_reuses_the_build(built):
    started = time.monotonic()
    again = guest_image.ensure_built(str(built.directory))
    assert again == built and time.monotonic() - started < 1
