"""A guest's disk from one compute to another over NBD, QEMU's network block protocol:
the source serves it with qemu-nbd, the destination reads it with qemu-img (a cold move)
or QEMU mirrors into the destination's own export (a live one). Computes share no
storage, and NBD needs nothing on either side that QEMU does not already bring."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess

from novalite import affinity
from novalite.conf import CONF
from novalite.virt.qemu import disk

EXPORT_TIMEOUT = 30.0


def free_port(address: str) -> int:
    """A port nothing listens on now (the caller binds it at once)."""
    with socket.socket() as probe:
        probe.bind((address, 0))
        return int(probe.getsockname()[1])


def export(path: str, pidfile: str) -> str:
    """Serve the qcow2 at `path`, read-only, to one reader (qemu-nbd then exits): the
    NBD URL the destination reads it from. qemu-nbd forks once it listens."""
    address = CONF.my_ip
    port = free_port(address)
    with affinity.unpinned():
        done = subprocess.run(
            [CONF.qemu.qemu_nbd, "--read-only", "--fork", "--format", "qcow2", "--bind",
             address, "--port", str(port), "--pid-file", pidfile, path],
            capture_output=True, text=True, timeout=EXPORT_TIMEOUT, check=False)
    if done.returncode != 0:
        raise disk.DiskError(f"qemu-nbd could not serve {path}: {done.stderr.strip()}")
    return f"nbd://{address}:{port}"


def stop_export(pidfile: str) -> None:
    """Stop a qemu-nbd the reader never came to (a move that failed on its way)."""
    with contextlib.suppress(OSError, ValueError):
        with open(pidfile) as found:
            pid = int(found.read().strip())
        with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
            if b"qemu-nbd" in cmdline.read():
                os.kill(pid, signal.SIGTERM)
    with contextlib.suppress(FileNotFoundError):
        os.unlink(pidfile)


def pull(url: str, path: str) -> None:
    """The disk served at `url` into a standalone qcow2 at `path` (holes stay holes)."""
    disk.convert(url, "raw", path)
