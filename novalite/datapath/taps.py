"""The file descriptor of a tap device that lives in a host's namespace, for QEMU's
`-netdev tap,fd=`. QEMU itself stays in the machine's namespace (its migration and NBD
connections use the machine's addresses); only the tap is elsewhere. A tap is attached
to by name in the namespace of the thread that opens /dev/net/tun, so a short-lived
thread enters the host's namespace (setns affects the calling thread only) to open it."""

from __future__ import annotations

import ctypes
import fcntl
import os
import struct
import threading

CLONE_NEWNET = 0x40000000
TUNSETIFF = 0x400454CA
IFF_TAP = 0x0002
IFF_NO_PI = 0x1000
IFF_VNET_HDR = 0x4000


def _setns(fd: int) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.setns(fd, CLONE_NEWNET) != 0:
        error = ctypes.get_errno()
        raise OSError(error, f"setns: {os.strerror(error)}")


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
    result: list[int] = []
    failure: list[BaseException] = []

    def inside() -> None:
        try:
            with open(f"/run/netns/{namespace}") as handle:
                _setns(handle.fileno())
            result.append(_open(name))
        except BaseException as exc:  # handed to the caller's thread
            failure.append(exc)

    thread = threading.Thread(target=inside, name=f"tap-{name}")
    thread.start()
    thread.join()
    if failure:
        raise failure[0]
    return result[0]
