"""The built default guest really boots under QEMU (TCG, as on CI machines): the marker
and the disk's text reach the serial console, it takes a DHCP lease from QEMU's user
network, reads its metadata from a config drive or the metadata service and runs the
user data, and an ACPI power-down stops it. Its initramfs holds Debian's dhcpcd with
everything the interpreter loads to run it."""

from __future__ import annotations

import contextlib
import gzip
import json
import shlex
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from novalite.virt.qemu import guest_dhcpcd, guest_image
from tests import services
from tests.unit.virt.qemu import cpio_reader
from tests.waiting import wait_for

BOOT_TIMEOUT = 60.0
NET = f"{guest_image.NET_MARKER} eth0="
META = guest_image.META_MARKER
USERDATA = guest_image.USERDATA_MARKER
KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGuest me@host\n"
STDIO_HTTP = Path(__file__).with_name("stdio_http.py")


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


@contextlib.contextmanager
def _boot(image: guest_image.GuestImage, work: Path,
          *extra: str) -> Iterator[subprocess.Popen]:
    """The guest on its disk (vda) plus the `extra` QEMU arguments, killed on the way out
    unless it stopped."""
    overlay = work / "disk.qcow2"
    subprocess.run(["qemu-img", "create", "-q", "-f", "qcow2", "-F", "qcow2", "-b",
                    str(image.disk), str(overlay)], check=True)
    qemu = subprocess.Popen([
        "qemu-system-x86_64", "-accel", "tcg", "-machine", "q35", "-cpu", "qemu64",
        "-m", "128", "-smp", "1", "-kernel", str(image.kernel), "-initrd", str(image.ramdisk),
        "-append", guest_image.COMMAND_LINE, "-display", "none", "-nodefaults", "-no-reboot",
        "-drive", f"file={overlay},if=virtio",
        "-chardev", f"file,id=ser0,path={work / 'console.log'}", "-serial", "chardev:ser0",
        "-qmp", f"unix:{work / 'qmp.sock'},server=on,wait=off", *extra])
    try:
        yield qemu
    finally:
        if qemu.poll() is None:
            qemu.kill()
            qemu.wait()


def _nic(*options: str) -> tuple[str, ...]:
    """A virtio NIC on QEMU's user network, whose DHCP server also hands out a hostname."""
    return ("-netdev", ",".join(("user,id=n0,hostname=vm0", *options)),
            "-device", "virtio-net-pci,netdev=n0,mac=52:54:00:12:34:56")


def _metadata_nic(root: Path) -> tuple[str, ...]:
    """A NIC whose network has `root` as its metadata service. guestfwd takes only
    addresses inside the user network, so the network is the link-local one: QEMU's host
    is then 169.254.2.2, its DNS .2.3, the guest .2.15, and the metadata address is on
    the link, never the host's. Unrestricted, as a restricted network's DHCP offers no
    router and DNS for the udhcpc script to set."""
    serve = shlex.join([sys.executable, str(STDIO_HTTP), str(root)])
    return _nic("net=169.254.0.0/16", f"guestfwd=tcp:169.254.169.254:80-cmd:{serve}")


def _assert_in_order(log: str, *lines: str) -> None:
    """Each of `lines` is a whole console line, after the one before it."""
    console = log.splitlines()
    after = 0
    for line in lines:
        assert line in console[after:], f"{line!r} not after line {after} of {console!r}"
        after = console.index(line, after) + 1


def _openstack_latest(root: Path, meta_data: dict, user_data: str) -> Path:
    """`root` laid out as a config drive or the metadata service serves it."""
    latest = root / "openstack" / "latest"
    latest.mkdir(parents=True)
    (latest / "meta_data.json").write_text(json.dumps(meta_data))
    (latest / "user_data").write_text(user_data)
    return root


def test_the_guest_boots_reads_its_disk_takes_a_lease_and_powers_off_on_acpi(built,
                                                                            tmp_path):
    console = tmp_path / "console.log"
    # Kept off the host's network, which on a cloud CI machine may have a metadata
    # service of its own at 169.254.169.254.
    with _boot(built, tmp_path, *_nic("restrict=on")) as qemu:
        log = _wait_for(console, guest_image.MARKER, BOOT_TIMEOUT)
        assert f"{guest_image.DISK_MARKER} {guest_image.DISK_TEXT}" in log
        assert "mem_kb=" in log.split(guest_image.MARKER)[1]
        _wait_for(console, f"{NET}10.0.2.15/24", BOOT_TIMEOUT)
        _qmp(tmp_path / "qmp.sock", "system_powerdown")
        _wait_for(console, guest_image.POWEROFF_MARKER, 20)
        assert qemu.wait(timeout=20) == 0


def test_the_guest_runs_the_user_data_of_the_metadata_service(built, tmp_path):
    www = _openstack_latest(
        tmp_path / "www", {"uuid": "u1", "hostname": "vm1", "public_keys": {"k": KEY}},
        "#!/bin/sh\necho hello-from-user-data\n"
        "echo \"gateway=$(ip route | awk '/^default/ {print $3}') $(cat /etc/resolv.conf)\"\n")
    with _boot(built, tmp_path, *_metadata_nic(www)):
        log = _wait_for(tmp_path / "console.log", f"{USERDATA} rc=0", BOOT_TIMEOUT)
    _assert_in_order(log, f"{NET}169.254.2.15/16", f"{META} source=metadata-service",
                     f"{META} hostname=vm1", f"{META} key={KEY[:20]}", "hello-from-user-data",
                     "gateway=169.254.2.2 nameserver 169.254.2.3", f"{USERDATA} rc=0")


def test_a_config_drive_comes_before_the_network(built, tmp_path):
    genisoimage = services.require_tool("genisoimage", "genisoimage")
    drive = _openstack_latest(tmp_path / "drive", {"uuid": "u2", "public_keys": {"k": KEY}},
                              "#!/bin/sh\nhostname\nexit 3\n")
    iso = tmp_path / "config-drive.iso"
    subprocess.run([genisoimage, "-quiet", "-o", str(iso), "-V", "config-2", "-J", "-r",
                    str(drive)], check=True)
    # The metadata service serves the same, but the guest must not ask it.
    with _boot(built, tmp_path, "-drive", f"file={iso},format=raw,if=virtio,readonly=on",
               *_metadata_nic(drive)):
        log = _wait_for(tmp_path / "console.log", f"{USERDATA} rc=3", BOOT_TIMEOUT)
    # No hostname in the metadata: the one from DHCP stays.
    _assert_in_order(log, f"{NET}169.254.2.15/16", f"{META} source=config-drive",
                     f"{META} key={KEY[:20]}", "vm0", f"{USERDATA} rc=3")
    assert f"{META} hostname=" not in log and "source=metadata-service" not in log


def test_the_dhcp_client_and_the_libraries_it_loads_are_in_the_initramfs(built):
    members = cpio_reader.read(gzip.decompress(built.ramdisk.read_bytes()))
    assert "lib/x86_64-linux-gnu/libc.so.6" in cpio_reader.loadable(members,
                                                                    guest_dhcpcd.PROGRAM)
    assert "lib64/ld-linux-x86-64.so.2" in members  # dhcpcd's PT_INTERP, as Debian has it


def test_a_second_call_reuses_the_build(built):
    started = time.monotonic()
    again = guest_image.ensure_built(str(built.directory))
    assert again == built and time.monotonic() - started < 1
