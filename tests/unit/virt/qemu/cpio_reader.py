"""Reads back a newc archive, to check what the writer produced."""

from __future__ import annotations


def read(data: bytes) -> dict[str, tuple[int, bytes, tuple[int, int]]]:
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
