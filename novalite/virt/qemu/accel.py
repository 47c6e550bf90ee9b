"""Choosing the accelerator: KVM only when a guest really runs under it.

`/dev/kvm` existing proves little (on these machines it belongs to a nested PVM module
that runs no standard guest: QEMU aborts or hangs), so under `virt_type = auto` a probe
boots a guest under KVM: the guests' own kernel when it is at hand (it must print its
banner on the serial console), else a one-sector guest that writes a byte to its serial
port. Without that output in time, guests use TCG. The sector alone is not proof: on
some machines it runs under KVM while a Linux kernel hangs right after leaving real
mode.
"""

from __future__ import annotations

import logging
import os
import subprocess
import tempfile
import time

from novalite import affinity

LOG = logging.getLogger(__name__)

PROBE_BYTE = b"K"
# Real-mode boot sector: mov dx, 0x3f8; mov al, 'K'; out dx, al; hlt; jmp back to hlt.
_PROBE_CODE = b"\xba\xf8\x03\xb0" + PROBE_BYTE + b"\xee\xf4\xeb\xfd"
PROBE_SECTOR = _PROBE_CODE + bytes(510 - len(_PROBE_CODE)) + b"\x55\xaa"


KERNEL_BANNER = b"Linux version"


def probe(emulator: str, accel: str, timeout: float, kernel: str | None = None
          ) -> str | None:
    """None if a guest ran under `accel` (`kernel` if given, else the boot sector), else
    why not."""
    with tempfile.TemporaryDirectory(prefix="novalite-probe-") as scratch:
        disk, serial = os.path.join(scratch, "boot.img"), os.path.join(scratch, "serial")
        argv = [emulator, "-accel", accel, "-cpu", "host" if accel == "kvm" else "qemu64",
                "-display", "none", "-nodefaults", "-no-user-config", "-no-reboot",
                "-serial", f"file:{serial}"]
        if kernel:
            argv += ["-machine", "q35", "-m", "128", "-kernel", kernel,
                     "-append", "console=ttyS0 panic=-1 no_timer_check"]
        else:
            with open(disk, "wb") as out:
                out.write(PROBE_SECTOR)
            argv += ["-machine", "pc", "-m", "16", "-drive", f"file={disk},format=raw,if=ide"]
        try:
            with affinity.unpinned():
                proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        except OSError as exc:
            return str(exc)
        try:
            return _wait_for(proc, serial, KERNEL_BANNER if kernel else PROBE_BYTE, timeout)
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.wait()


def _wait_for(proc: subprocess.Popen, serial: str, expected: bytes, timeout: float
              ) -> str | None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if os.path.exists(serial):
            with open(serial, "rb") as out:
                if expected in out.read():
                    return None
        if proc.poll() is not None:
            output = proc.stdout.read().decode(errors="replace").strip() if proc.stdout else ""
            return f"QEMU exited with {proc.returncode}: {output[-300:]}"
        time.sleep(0.05)
    return f"no output from the probe guest within {timeout:g}s"


def choose(emulator: str, virt_type: str, timeout: float, kernel: str | None = None) -> str:
    """QEMU's -accel value for guests under `[libvirt] virt_type` (`kernel`: the guests'
    own, for the probe)."""
    if virt_type == "kvm":
        return "kvm"
    if virt_type == "qemu":
        LOG.info("Guests run under TCG (software emulation): [libvirt] virt_type = qemu")
        return "tcg"
    if not os.access("/dev/kvm", os.R_OK | os.W_OK):
        LOG.info("Guests run under TCG (software emulation): /dev/kvm is not usable")
        return "tcg"
    failure = probe(emulator, "kvm", timeout, kernel)
    if failure is None:
        LOG.info("Guests run under KVM: a probe guest (%s) booted under it",
                 kernel or "a boot sector")
        return "kvm"
    LOG.warning("Guests run under TCG (software emulation): /dev/kvm exists but a probe "
                "guest did not run under KVM (%s); set [libvirt] virt_type = qemu to skip "
                "the probe", failure)
    return "tcg"
