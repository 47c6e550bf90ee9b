"""The file descriptor of a tap device that lives in a host's namespace, for QEMU's
`-netdev tap,fd=`. QEMU itself stays in the machine's namespace (its migration and NBD
connections use the machine's addresses); only the tap is elsewhere. A tap is attached
to by name in the namespace of the thread that opens /dev/net/tun."""

from __future__ import annotations

import fcntl
import os
import struct

from novalite.datapath import netns

TUNSETIFF = 0x400454CA
IFF_TAP = 0x0002
IFF_NO_PI = 0x1000
IFF_VNET_HDR = 0x4000


def _open(name: str) -> int:
    fd = os.open("/dev/net/tun", os.O_RDWR | os.O_CLOEXEC)
    try:
        fcntl.ioctl(fd, TUNSETIFF,
                    struct.pack("16sH", name.encode(), IFF_TAP | IFF_NO_PI | IFF_VNET_HDR))
    except OSError:
        os.close(fd)
        raise
    return fd


def open_tap(namespace: str, name: str) -> int:
    """An open descriptor of tap `name` in `namespace` (the caller closes it once QEMU
    has it)."""
    return netns.call_in(namespace, lambda: _open(name))
