"""qemu-img: what a base image is, and the per-instance qcow2 overlay on it."""

from __future__ import annotations

import json
import os
import subprocess
import tempfile

from novalite import affinity
from novalite.conf import CONF

GiB = 1024 ** 3
BOOT_SIGNATURE = b"\x55\xaa"


class DiskError(Exception):
    """qemu-img refused the image or the operation."""


def _run(*args: str) -> str:
    try:
        with affinity.unpinned():
            done = subprocess.run([CONF.qemu.qemu_img, *args], capture_output=True,
                                  text=True, timeout=120, check=False)
    except FileNotFoundError as exc:
        raise DiskError(f"{CONF.qemu.qemu_img} is not installed (apt-get install "
                        "qemu-utils)") from exc
    if done.returncode != 0:
        raise DiskError(done.stderr.strip() or f"qemu-img {args[0]} failed")
    return done.stdout


def info(path: str) -> dict:
    """Format and virtual size as qemu-img reads them from the bytes (never trusting a
    declared disk_format)."""
    return json.loads(_run("info", "-U", "--output=json", path))


def boot_sector(path: str, fmt: str) -> bytes:
    """The first 512 bytes of the virtual disk: a file, or anything else qemu-img opens
    (a volume through its export: Volume.probe_filename)."""
    with tempfile.TemporaryDirectory() as scratch:
        out = os.path.join(scratch, "sector")
        _run("dd", "-f", fmt, "-O", "raw", "bs=512", "count=1", f"if={path}", f"of={out}")
        with open(out, "rb") as sector:
            return sector.read()


def is_bootable(path: str, fmt: str) -> bool:
    """A BIOS boots a disk whose first sector ends with the boot signature."""
    return boot_sector(path, fmt)[510:512] == BOOT_SIGNATURE


def create_overlay(base: str, base_format: str, path: str, size_bytes: int | None) -> None:
    """A qcow2 overlay backed by the cached base (the base is never written), grown to
    `size_bytes` when that is larger than the base."""
    args = ["create", "-q", "-f", "qcow2", "-F", base_format, "-b", base, path]
    if size_bytes:
        args.append(str(size_bytes))
    _run(*args)


def virtual_size(path: str) -> int:
    return int(info(path)["virtual-size"])


def grow(path: str, size_bytes: int) -> None:
    """A larger virtual disk (a resize to a flavor with a bigger root disk)."""
    _run("resize", "-q", path, str(size_bytes))


def convert(source: str, source_format: str, out: str) -> None:
    """`source` (a path or an NBD URL) into a standalone qcow2 at `out`."""
    _run("convert", "-q", "-f", source_format, "-O", "qcow2", source, out)


def flatten(path: str, out: str) -> None:
    """A standalone qcow2 copy of an overlay with its base folded in (a snapshot's data,
    which must not depend on this host's image cache). The disk may be open in a paused
    guest's QEMU: read it without its lock (-U)."""
    _run("convert", "-q", "-U", "-O", "qcow2", path, out)
