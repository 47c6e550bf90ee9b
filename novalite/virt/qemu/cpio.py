"""A cpio archive in the "newc" format the kernel unpacks as an initramfs, written in
Python so that building one needs neither the cpio binary nor root (a device node is
just a header here, no mknod)."""

from __future__ import annotations

import dataclasses
import stat
from collections.abc import Iterable

MAGIC = b"070701"
TRAILER = "TRAILER!!!"


@dataclasses.dataclass(frozen=True)
class Entry:
    """One member: `mode` carries the file type bits (stat.S_IFREG | 0o755...)."""

    name: str
    mode: int
    data: bytes = b""
    rdev: tuple[int, int] = (0, 0)


def directory(name: str) -> Entry:
    return Entry(name, stat.S_IFDIR | 0o755)


def regular(name: str, data: bytes, perms: int = 0o644) -> Entry:
    return Entry(name, stat.S_IFREG | perms, data)


def symlink(name: str, target: str) -> Entry:
    return Entry(name, stat.S_IFLNK | 0o777, target.encode())


def char_device(name: str, major: int, minor: int, perms: int = 0o600) -> Entry:
    return Entry(name, stat.S_IFCHR | perms, rdev=(major, minor))


def _pad(length: int) -> bytes:
    return bytes(-length % 4)


def _member(ino: int, entry: Entry) -> bytes:
    name = entry.name.encode() + b"\0"
    nlink = 2 if stat.S_ISDIR(entry.mode) else 1
    # ino mode uid gid nlink mtime filesize devmajor devminor rdevmajor rdevminor namesize
    # check: mtime 0 and root ownership keep the archive the same on every build.
    fields = (ino, entry.mode, 0, 0, nlink, 0, len(entry.data), 0, 0, *entry.rdev,
              len(name), 0)
    header = MAGIC + b"".join(b"%08X" % value for value in fields)
    head = header + name
    return head + _pad(len(head)) + entry.data + _pad(len(entry.data))


def archive(entries: Iterable[Entry]) -> bytes:
    """The archive of `entries`, in order (a directory must come before its members)."""
    members = [_member(ino, entry) for ino, entry in enumerate(entries, start=1)]
    members.append(_member(0, Entry(TRAILER, 0)))
    return b"".join(members)
