"""What an IPv6 host on a network hears and asks, from a namespace standing for it: the
router advertisements that reach it (their flags and options, parsed from the wire), and
a DHCPv6 exchange as a client makes one (none is installed on the machine; the default
guest's dhcpcd makes it in tests/integration/virt/qemu/test_real_network.py): from the
host's link-local address, with a DUID-LL, asking again while no answer helps."""

from __future__ import annotations

import dataclasses
import ipaddress
import json
import os
import socket
import struct
import time

from novalite.datapath import linux, netns
from tests.waiting import wait_for

ROUTER_ADVERTISEMENT = 134
ALL_DHCP_AGENTS = "ff02::1:2"
SOLICIT, REPLY, INFORMATION_REQUEST = 1, 7, 11
CLIENT_ID, IA_NA, IA_ADDRESS, ORO, ELAPSED, STATUS, RAPID_COMMIT, DNS_SERVERS = (
    1, 3, 5, 6, 8, 13, 14, 23)


@dataclasses.dataclass
class Advertisement:
    source: str
    managed: bool  # M
    other: bool  # O
    router_lifetime: int
    prefixes: dict[str, str]  # prefix -> its flags: "L" on-link, "A" autonomous
    mtu: int | None = None
    dns: list[str] = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class Dhcpv6Reply:
    source: str
    addresses: list[str]
    dns: list[str]
    status: int | None  # of the IA, or of the whole reply (2: no addresses available)


def link_local_ready(namespace: str, device: str) -> str:
    """The device's link-local address once duplicate address detection let it be
    used (nothing can be sent from it before)."""
    def ready() -> str | None:
        shown = json.loads(linux.ip(namespace, "-j", "-6", "address", "show", "dev", device))
        return next((a["local"] for link in shown for a in link["addr_info"]
                     if a["scope"] == "link" and not a.get("tentative")), None)
    return wait_for(ready, timeout=10, what=f"the link-local address of {device}")


def global_addresses(namespace: str, device: str) -> list[str]:
    shown = json.loads(linux.ip(namespace, "-j", "-6", "address", "show", "dev", device))
    return [a["local"] for link in shown for a in link["addr_info"]
            if a["scope"] == "global" and not a.get("tentative")]


def listen(namespace: str) -> socket.socket:
    """A socket hearing the ICMPv6 that reaches the namespace (open it before the host's
    link comes up to hear the answer to its first router solicitation)."""
    return netns.call_in(namespace, lambda: socket.socket(
        socket.AF_INET6, socket.SOCK_RAW, socket.IPPROTO_ICMPV6))


def advertisement(listener: socket.socket, timeout: float = 15.0) -> Advertisement:
    """The next router advertisement the listener hears."""
    deadline = time.monotonic() + timeout
    with listener:
        while True:
            listener.settimeout(max(0.01, deadline - time.monotonic()))
            data, (source, *_) = listener.recvfrom(2048)
            if data[0] == ROUTER_ADVERTISEMENT:
                return _advertisement(source, data)


def _advertisement(source: str, data: bytes) -> Advertisement:
    flags, lifetime = data[5], struct.unpack_from("!H", data, 6)[0]
    found = Advertisement(source, bool(flags & 0x80), bool(flags & 0x40), lifetime, {})
    offset = 16
    while offset + 8 <= len(data) and data[offset + 1]:
        kind, body = data[offset], data[offset:offset + 8 * data[offset + 1]]
        if kind == 3:  # prefix information
            prefix = ipaddress.IPv6Address(body[16:32])
            found.prefixes[f"{prefix}/{body[2]}"] = ("L" if body[3] & 0x80 else "") + (
                "A" if body[3] & 0x40 else "")
        elif kind == 5:
            found.mtu = struct.unpack_from("!I", body, 4)[0]
        elif kind == 25:  # RDNSS
            found.dns = [str(ipaddress.IPv6Address(body[i:i + 16]))
                         for i in range(8, len(body), 16)]
        offset += len(body)
    return found


def _option(code: int, body: bytes) -> bytes:
    return struct.pack("!HH", code, len(body)) + body


def _options(data: bytes) -> list[tuple[int, bytes]]:
    found, offset = [], 0
    while offset + 4 <= len(data):
        code, length = struct.unpack_from("!HH", data, offset)
        found.append((code, data[offset + 4:offset + 4 + length]))
        offset += 4 + length
    return found


def dhcpv6(namespace: str, device: str, mac: str, stateful: bool = True,
           tries: int = 5, window: float = 1.0) -> list[Dhcpv6Reply]:
    """The replies to a Solicit with rapid commit for an address (`stateful`) or to an
    Information-request, sent from the device's link-local address as a client does:
    again, with the same transaction, while no answer gives what was asked (dnsmasq
    knows a client by the MAC its neighbour table has for it, which may come only with
    its first answer), each time hearing every server for `window` seconds."""
    link_local_ready(namespace, device)

    def bound() -> tuple[socket.socket, int]:
        sock = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_BINDTODEVICE, device.encode())
        sock.bind(("::", 546))
        return sock, socket.if_nametoindex(device)

    sock, index = netns.call_in(namespace, bound)
    xid = os.urandom(3)
    message = bytes([SOLICIT if stateful else INFORMATION_REQUEST]) + xid + _request(
        mac, stateful)
    replies: list[Dhcpv6Reply] = []
    with sock:
        for _ in range(tries):
            sock.sendto(message, (ALL_DHCP_AGENTS, 547, 0, index))
            replies = _replies(sock, xid, window)
            if any(reply.addresses or not stateful for reply in replies):
                break
    return replies


def _request(mac: str, stateful: bool) -> bytes:
    """The options of a request: the client's DUID-LL, and an address (IA_NA) with rapid
    commit or only the DNS servers."""
    duid = struct.pack("!HH", 3, 1) + bytes.fromhex(mac.replace(":", ""))
    body = (_option(CLIENT_ID, duid) + _option(ELAPSED, b"\0\0")
            + _option(ORO, struct.pack("!H", DNS_SERVERS)))
    if stateful:
        body += _option(IA_NA, struct.pack("!III", 1, 0, 0)) + _option(RAPID_COMMIT, b"")
    return body


def _replies(sock: socket.socket, xid: bytes, window: float) -> list[Dhcpv6Reply]:
    found = []
    deadline = time.monotonic() + window
    while (left := deadline - time.monotonic()) > 0:
        sock.settimeout(left)
        try:
            data, (source, *_) = sock.recvfrom(2048)
        except TimeoutError:
            break
        if data[0] == REPLY and data[1:4] == xid:
            found.append(_reply(source, data[4:]))
    return found


def _reply(source: str, data: bytes) -> Dhcpv6Reply:
    found = Dhcpv6Reply(source, [], [], None)
    for code, value in _options(data):
        if code == IA_NA:
            for inner, content in _options(value[12:]):
                if inner == IA_ADDRESS:
                    found.addresses.append(str(ipaddress.IPv6Address(content[:16])))
                elif inner == STATUS:
                    found.status = struct.unpack_from("!H", content)[0]
        elif code == STATUS:
            found.status = struct.unpack_from("!H", value)[0]
        elif code == DNS_SERVERS:
            found.dns = [str(ipaddress.IPv6Address(value[i:i + 16]))
                         for i in range(0, len(value), 16)]
    return found
