"""A guest's remote consoles, as Nova's libvirt driver gives them: QEMU's VNC server, and
its first serial port as a raw TCP listener, each on a port of its own on the compute.

No port is remembered: the running QEMU is asked for its ports (query-vnc,
query-chardev) each time a console is wanted. So a restarted compute service answers
for the guests it adopted, every relaunch (reboot, start, resume, rescue, a move's
destination) answers with the port its new QEMU holds, and nothing in the instance
directory can go stale when QEMU dies.

No port is ever checked free and then bound by someone else, so guests of one host, and
the computes sharing a machine ([qemu] hosts), never race for one: QEMU's VNC server
binds the first free display itself (novalite.virt.qemu.config), and the serial port's
listener is bound here and handed to QEMU, as the taps are. Nova's libvirt test-binds a
port of [serial_console] port_range, closes it and lets QEMU bind it again, losing it to
whoever binds in between; here the test bind is the one QEMU keeps.
"""

from __future__ import annotations

import contextlib
import errno
import re
import socket
from collections.abc import Iterator
from typing import TYPE_CHECKING

from novalite import exception
from novalite.conf import CONF
from novalite.virt.qemu.config import SERIAL_CHARDEV

if TYPE_CHECKING:
    from novalite.virt.qemu.guest import Guest

# query-chardev's name of a listening socket chardev, with or without a client:
# "disconnected:tcp:127.0.0.1:10000,server=on", "tcp:[::1]:10000,server=on <-> ..."
_LISTENING = re.compile(r"(?:disconnected:)?tcp:.*:(\d+),server")


def vnc_listen() -> str | None:
    """Where a guest launched now serves VNC: None without VNC consoles."""
    return str(CONF.vnc.server_listen) if CONF.vnc.enabled else None


@contextlib.contextmanager
def serial_listener() -> Iterator[socket.socket | None]:
    """For a guest launched now, a socket listening on the first free port of
    [serial_console] port_range (both ends in it), closed on leaving (QEMU keeps its
    own copy); None without serial consoles."""
    if not CONF.serial_console.enabled:
        yield None
        return
    first, last = (int(end) for end in CONF.serial_console.port_range.split(":"))
    with _listen(str(CONF.serial_console.proxyclient_address), first, last) as listener:
        yield listener


def _listen(address: str, first: int, last: int) -> socket.socket:
    """Any failure but a port taken (an address not of this host) is the operator's
    to see, not a range used up."""
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    for port in range(first, last + 1):
        try:
            return socket.create_server((address, port), family=family)
        except OSError as exc:
            if exc.errno != errno.EADDRINUSE:
                raise
    raise exception.SocketPortRangeExhaustedException(host=address)


def vnc_port(guest: Guest) -> int | None:
    """The port the guest's QEMU serves VNC on; None if it was launched without."""
    found = guest.qmp("query-vnc")
    assert isinstance(found, dict)
    return int(found["service"]) if found["enabled"] else None


def serial_port(guest: Guest) -> int | None:
    """The port the guest's first serial port listens on; None if it was launched
    logging to console.log only."""
    chardevs = guest.qmp("query-chardev")
    assert isinstance(chardevs, list)
    for chardev in chardevs:
        found = _LISTENING.match(chardev["filename"])
        if chardev["label"] == SERIAL_CHARDEV and found:
            return int(found.group(1))
    return None
