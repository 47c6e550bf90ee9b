"""Reads back a newc archive, to check what the writer produced, and what a program in
it needs to load from it."""

from __future__ import annotations

import posixpath
import stat

from novalite.virt.qemu import elf, guest_dhcpcd

Members = dict[str, tuple[int, bytes, tuple[int, int]]]


def read(data: bytes) -> Members:
    """name -> (mode, data, (rdevmajor, rdevminor)), stopping at the trailer."""
    members, offset = {}, 0
    while True:
        assert data[offset:offset + 6] == b"070701"
        fields = [int(data[offset + 6 + 8 * i: offset + 14 + 8 * i], 16) for i in range(13)]
        mode, size, rdev, namesize = fields[1], fields[6], (fields[9], fields[10]), fields[11]
        start = offset + 110
        name = data[start:start + namesize - 1].decode()
        body = start + namesize + (-(110 + namesize) % 4)
        if name == "TRAILER!!!":
            return members
        members[name] = (mode, data[body:body + size], rdev)
        offset = body + size + (-size % 4)


def followed(members: Members, path: str) -> tuple[int, bytes]:
    """The file at `path` in the archive, through its symbolic links, as the kernel
    opens it (absolute targets from the archive's root)."""
    for _ in range(8):
        mode, data = members[path][:2]
        if not stat.S_ISLNK(mode):
            return mode, data
        path = posixpath.normpath(posixpath.join(posixpath.dirname(path),
                                                 data.decode())).lstrip("/")
    raise AssertionError(f"symbolic link loop at {path}")


def loadable(members: Members, path: str) -> list[str]:
    """The libraries the interpreter loads to run the executable at `path`, after checking
    that they and the interpreter (PT_INTERP) are in the archive: each library named by a
    DT_NEEDED, theirs too, in the first of the directories the interpreter searches."""
    mode, data = followed(members, path)
    assert stat.S_ISREG(mode) and mode & 0o111, f"{path} is no executable file"
    interpreter = elf.interpreter(data)
    assert interpreter is not None, f"{path} is static"
    mode = followed(members, interpreter.lstrip("/"))[0]
    assert stat.S_ISREG(mode) and mode & 0o111, f"{interpreter} is no executable file"
    loaded: list[str] = []
    pending = [data]
    while pending:
        for soname in elf.needed(pending.pop()):
            found = [f"{d}/{soname}" for d in guest_dhcpcd.LIBRARY_DIRS
                     if f"{d}/{soname}" in members]
            assert found, f"{soname} (needed by {path}) is not in the archive"
            if found[0] not in loaded:
                loaded.append(found[0])
                mode, library = followed(members, found[0])
                assert stat.S_ISREG(mode), f"{found[0]} is no file"
                pending.append(library)
    return loaded
