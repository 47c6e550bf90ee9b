"""Choosing the accelerator: KVM only when a guest really runs under it.

`/dev/kvm` existing proves little (on these machines it belongs to a nested PVM module
that runs no standard guest: QEMU aborts or hangs), so under `virt_type = auto` a probe
boots a one-sector guest under KVM that writes a byte to its serial port; without that
byte in time, guests use TCG.
"""

from __future__ import annotations

import logging
import os
import subprocess
import tempfile
import time

LOG = logging.getLogger(__name__)

PROBE_BYTE = b"K"
# Real-mode boot sector: mov dx, 0x3f8; mov al, 'K'; out dx, al; hlt; jmp back to hlt.
_PROBE_CODE = b"\xba\xf8\x03\xb0" + PROBE_BYTE + b"\xee\xf4\xeb\xfd"
PROBE_SECTOR = _PROBE_CODE + bytes(510 - len(_PROBE_CODE)) + b"\x55\xaa"


def probe(emulator: str, accel: str, timeout: float) -> str | None:
    """None if a guest ran under `accel`, else why not."""
    with tempfile.TemporaryDirectory(prefix="novalite-probe-") as scratch:
        disk, serial = os.path.join(scratch, "boot.img"), os.path.join(scratch, "serial")
        with open(disk, "wb") as out:
            out.write(PROBE_SECTOR)
        argv = [emulator, "-accel", accel, "-cpu", "host" if accel == "kvm" else "qemu64",
                "-machine", "pc", "-m", "16", "-display", "none", "-nodefaults",
                "-no-user-config", "-serial", f"file:{serial}",
                "-drive", f"file={disk},format=raw,if=ide"]
        try:
            proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT)
        except OSError as exc:
            return str(exc)
        try:
            return _wait_for_byte(proc, serial, timeout)
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.wait()


def _wait_for_byte(proc: subprocess.Popen, serial: str, timeout: float) -> str | None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if os.path.exists(serial):
            with open(serial, "rb") as out:
                if PROBE_BYTE in out.read():
                    return None
        if proc.poll() is not None:
            output = proc.stdout.read().decode(errors="replace").strip() if proc.stdout else ""
            return f"QEMU exited with {proc.returncode}: {output[-300:]}"
        time.sleep(0.05)
    return f"no output from the probe guest within {timeout:g}s"


def choose(emulator: str, virt_type: str, timeout: float) -> str:
    """QEMU's -accel value for guests under `[libvirt] virt_type`."""
    if virt_type == "kvm":
        return "kvm"
    if virt_type == "qemu":
        LOG.info("Guests run under TCG (software emulation): [libvirt] virt_type = qemu")
        return "tcg"
    if not os.access("/dev/kvm", os.R_OK | os.W_OK):
        LOG.info("Guests run under TCG (software emulation): /dev/kvm is not usable")
        return "tcg"
    failure = probe(emulator, "kvm", timeout)
    if failure is None:
        LOG.info("Guests run under KVM: a probe guest booted under it")
        return "kvm"
    LOG.warning("Guests run under TCG (software emulation): /dev/kvm exists but a probe "
                "guest did not run under KVM (%s); set [libvirt] virt_type = qemu to skip "
                "the probe", failure)
    return "tcg"
