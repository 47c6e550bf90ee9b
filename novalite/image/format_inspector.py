"""An image's virtual size from its first bytes, as Glance's format inspector finds it
while data streams in: raw is its own size; qcow2 says so in its header. Other formats
stay unknown (null), as in Glance when it cannot tell."""

from __future__ import annotations

HEAD_SIZE = 512
_QCOW2_MAGIC = b"QFI\xfb"


def virtual_size(disk_format: str | None, head: bytes, size: int) -> int | None:
    if disk_format == "raw":
        return size
    if disk_format == "qcow2" and head.startswith(_QCOW2_MAGIC) and len(head) >= 32:
        return int.from_bytes(head[24:32], "big")  # header field `size`, big-endian
    return None
