"""Address management: which address a port gets on a subnet.

An address is taken by inserting its `ipallocations` row, whose primary key (address,
subnet) is the only arbiter: two requests that pick the same free address both try to
insert it and the loser's transaction is retried (network.transaction) with a fresh view.
To make such losses rare, a request picks at random among the first free addresses of
the allocation pools rather than always the very first. The gateway is never in a pool.

Finding those first free addresses must not cost a read of every address taken (a
/16's thousands, on SQLite while holding the write lock): each process remembers per
subnet where in its pools the first free address was, and looks up only the next few
dozen pool addresses from there. What it remembers is forgotten when it frees an
address (a port deleted, a fixed IP dropped), and once a look from there finds the pools
full; then one read of all taken addresses finds the first free one again. Another
process's frees are seen at that point too: until then its addresses wait, as Neutron's
old availability ranges let them wait until a pool was used up.
"""

from __future__ import annotations

import functools
import ipaddress
import itertools
import random
import socket
from collections.abc import Iterator
from typing import Any

from sqlalchemy import bindparam, event, func, insert, select
from sqlalchemy.orm import Session, object_session

from novalite.db.models import network as m
from novalite.network import errors

WINDOW = 16  # free addresses a request chooses among
PROBE = 2 * WINDOW  # pool addresses looked up at a time past the first free one
_OCTETS = [str(octet) for octet in range(256)]
_ALLOCATIONS = m.IPAllocation.__table__.c
_OF_SUBNET = _ALLOCATIONS.subnet_id == bindparam("subnet_id")
_TAKEN = select(_ALLOCATIONS.ip_address).where(_OF_SUBNET)
_TAKEN_JOINED = select(func.aggregate_strings(_ALLOCATIONS.ip_address, ",")).where(_OF_SUBNET)
_PROBE = select(_ALLOCATIONS.ip_address).where(
    _OF_SUBNET, _ALLOCATIONS.ip_address.in_(bindparam("addresses", expanding=True)))
_ALLOCATE = insert(m.IPAllocation.__table__)
JOINS_WHOLE = ("sqlite", "postgresql")  # the dialects whose string aggregate has no cap
IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
SLAAC_MODES = ("slaac", "dhcpv6-stateless")
DHCP_OWNER = "network:dhcp"
# the ports that get no automatic IPv6 address (neutron-lib's ROUTER_INTERFACE_OWNERS_SNAT)
ROUTER_INTERFACE_OWNERS = ("network:router_interface", "network:router_interface_distributed",
                           "network:ha_router_replicated_interface",
                           "network:router_centralized_snat")


def default_pools(cidr: str, gateway: str | None) -> list[dict[str, str]]:
    """The whole subnet less the network and broadcast addresses (v4), the subnet-router
    anycast address (v6), and the gateway."""
    net = ipaddress.ip_network(cidr)
    first, last = int(net.network_address) + 1, int(net.broadcast_address)
    if net.version == 4:
        last -= 1
    if net.prefixlen >= net.max_prefixlen - 1:  # /31, /32: every address
        first, last = int(net.network_address), int(net.broadcast_address)
    ranges = [(first, last)]
    if gateway is not None:
        gw = int(ipaddress.ip_address(gateway))
        ranges = [r for lo, hi in ranges for r in ((lo, gw - 1), (gw + 1, hi))
                  if r[0] <= r[1]] if first <= gw <= last else ranges
    cls = ipaddress.ip_address
    return [{"start": str(cls(lo) if net.version == 4 else ipaddress.IPv6Address(lo)),
             "end": str(cls(hi) if net.version == 4 else ipaddress.IPv6Address(hi))}
            for lo, hi in ranges]


def validate_pools(cidr: str, gateway: str | None, pools: list[dict[str, str]]) -> None:
    """Pools inside the subnet, ordered, not overlapping, not holding the gateway."""
    net = ipaddress.ip_network(cidr)
    spans = []
    for pool in pools:
        try:
            lo, hi = ipaddress.ip_address(pool["start"]), ipaddress.ip_address(pool["end"])
        except (KeyError, ValueError, TypeError):
            raise errors.InvalidInput(error_message=f"Invalid allocation pool {pool}") \
                from None
        if lo not in net or hi not in net or lo.version != net.version:
            raise errors.BadRequest(resource="subnet", msg=(
                f"The allocation pool {lo}-{hi} spans beyond the subnet cidr {cidr}"))
        if int(lo) > int(hi):
            raise errors.BadRequest(resource="subnet", msg=(
                f"Invalid allocation pool {lo}-{hi}: the start is after the end"))
        if gateway is not None and int(lo) <= int(ipaddress.ip_address(gateway)) <= int(hi):
            raise errors.GatewayConflictWithAllocationPools(ip_address=gateway,
                                                            pool=f"{lo}-{hi}")
        spans.append((int(lo), int(hi), f"{lo}-{hi}"))
    spans.sort()
    for (_, end, a), (start, _, b) in zip(spans, spans[1:], strict=False):
        if start <= end:
            raise errors.BadRequest(resource="subnet", msg=(
                f"Found overlapping allocation pools: {a} and {b} for subnet {cidr}."))


def _pools(subnet: m.Subnet) -> list[tuple[int, int]]:
    """The allocation pools as (first, last) address numbers."""
    return [(int(ipaddress.ip_address(pool["start"])), int(ipaddress.ip_address(pool["end"])))
            for pool in subnet.allocation_pools]


def _in_pools(subnet: m.Subnet, pools: list[tuple[int, int]]) -> Iterator[str]:
    return itertools.chain.from_iterable(_texts(lo, hi, subnet.ip_version) for lo, hi in pools)


def _texts(lo: int, hi: int, ip_version: int) -> Iterator[str]:
    """The addresses lo..hi as the allocations store them (canonical text). IPv4's come
    a /24 at a time from a cache, so that looking for the first free ones past
    thousands taken runs in C rather than formatting and yielding each in Python."""
    if ip_version == 6:
        return (str(ipaddress.IPv6Address(number)) for number in range(lo, hi + 1))
    return itertools.chain.from_iterable(
        _block(block, max(lo, block << 8) & 255, min(hi, block << 8 | 255) & 255)
        for block in range(lo >> 8, (hi >> 8) + 1))


@functools.lru_cache(maxsize=1024)
def _block(block: int, first: int, last: int) -> tuple[str, ...]:
    """The addresses first..last of the /24 `block`, as text: its prefix ("10.0.3.") and
    the last octet, several times quicker than formatting each address."""
    prefix = socket.inet_ntoa((block << 8).to_bytes(4, "big"))[:-1]
    return tuple(prefix + _OCTETS[octet] for octet in range(first, last + 1))


def _taken(s: Session, subnet_id: str) -> set[str]:
    """The subnet's addresses given out, as stored. SQLite and PostgreSQL join them into
    one string: one row to fetch rather than one per port (a quarter of the time with
    800 ports, and on SQLite while holding the write lock). MySQL's GROUP_CONCAT cuts
    what it joins at group_concat_max_len, so there they are read row by row."""
    if s.get_bind().dialect.name in JOINS_WHOLE:
        joined = s.execute(_TAKEN_JOINED, {"subnet_id": subnet_id}).scalar()
        return set(joined.split(",")) if joined else set()
    return {address for address, in s.execute(_TAKEN, {"subnet_id": subnet_id})}


class _Hints:
    """Per subnet, the offset into its pools of the first free address this process last
    saw, and whether it has freed an address since (then every hint is stale)."""

    def __init__(self) -> None:
        self.first_free: dict[str, tuple[int, int]] = {}  # subnet → (generation, offset)
        self.generation = 0

    def get(self, subnet_id: str) -> tuple[int, int | None]:
        """The generation now, and the hint if it is of this generation. Setting a hint
        with the generation read before looking keeps a look that overlapped a free
        from passing for a newer one."""
        generation, offset = self.first_free.get(subnet_id, (-1, 0))
        return self.generation, offset if generation == self.generation else None

    def set(self, subnet_id: str, generation: int, offset: int) -> None:
        self.first_free[subnet_id] = (generation, offset)

    def forget(self) -> None:
        self.generation += 1


HINTS = _Hints()


@event.listens_for(m.Port, "after_delete")
@event.listens_for(m.IPAllocation, "after_delete")
def _freeing(_mapper: Any, _connection: Any, row: Any) -> None:
    """A port deleted takes its addresses with it (a foreign key's cascade); the hints
    are forgotten once the transaction that freed them commits (`freeing`)."""
    s = object_session(row)
    if s is not None:
        s.info["ipam_freed"] = True


def freeing(s: Session) -> bool:
    """Whether `s` freed addresses, asked after its last flush; if so, the caller calls
    HINTS.forget() once `s` committed (not before: a pick in between would trust the
    hint again)."""
    return bool(s.info.pop("ipam_freed", False))


def _span(subnet: m.Subnet, pools: list[tuple[int, int]], offset: int, count: int
          ) -> list[str]:
    """`count` pool addresses (fewer at the pools' end) from `offset` into the pools."""
    found: list[str] = []
    for lo, hi in pools:
        size = hi - lo + 1
        if offset >= size:
            offset -= size
            continue
        first = lo + offset
        last = min(hi, first + count - len(found) - 1)
        found.extend(_texts(first, last, subnet.ip_version))
        offset = 0
        if len(found) == count:
            break
    return found


def _offset(pools: list[tuple[int, int]], address: str) -> int:
    number = int(ipaddress.ip_address(address))
    before = 0
    for lo, hi in pools:
        if lo <= number <= hi:
            return before + number - lo
        before += hi - lo + 1
    raise ValueError(address)


def _free_past(s: Session, subnet: m.Subnet, pools: list[tuple[int, int]], offset: int,
               gateway: str | None) -> list[str]:
    """Up to WINDOW free addresses from `offset` on, a PROBE of pool addresses looked
    up at a time."""
    free: list[str] = []
    while len(free) < WINDOW:
        span = _span(subnet, pools, offset, PROBE)
        if not span:
            break
        taken = {address for address, in s.execute(
            _PROBE, {"subnet_id": subnet.id, "addresses": span})}
        taken.add(gateway or "")
        free.extend(itertools.islice(itertools.filterfalse(taken.__contains__, span),
                                     WINDOW - len(free)))
        offset += len(span)
    return free


def _free_from_start(s: Session, subnet: m.Subnet, pools: list[tuple[int, int]],
                     gateway: str | None) -> list[str]:
    """The first WINDOW free addresses, from every address taken read at once. The
    addresses taken are compared as the text they are stored as: none is parsed."""
    taken = _taken(s, subnet.id)
    taken.add(gateway or "")
    return list(itertools.islice(
        itertools.filterfalse(taken.__contains__, _in_pools(subnet, pools)), WINDOW))


def _pick(s: Session, subnet: m.Subnet) -> str | None:
    """One of the first WINDOW free addresses of the pools, at random (concurrent
    requests rarely pick the same one)."""
    pools = _pools(subnet)
    gateway = str(ipaddress.ip_address(subnet.gateway_ip)) if subnet.gateway_ip else None
    generation, hint = HINTS.get(subnet.id)
    free = [] if hint is None else _free_past(s, subnet, pools, hint, gateway)
    if not free:
        free = _free_from_start(s, subnet, pools, gateway)
    if not free:
        return None
    HINTS.set(subnet.id, generation, _offset(pools, free[0]))
    return random.choice(free)


def eui64(cidr: str, mac: str) -> str:
    """The SLAAC address a host with `mac` forms on a /64."""
    octets = [int(x, 16) for x in mac.split(":")]
    octets[0] ^= 0x02
    iid = octets[:3] + [0xFF, 0xFE] + octets[3:]
    net = ipaddress.IPv6Network(cidr)
    return str(net.network_address + int.from_bytes(bytes(iid), "big"))


def check_address(subnet: m.Subnet, address: str) -> str:
    """`address` as a canonical string, if it is a usable address of `subnet`."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        raise errors.InvalidInput(error_message=f"{address} is not a valid IP address") \
            from None
    net = ipaddress.ip_network(subnet.cidr)
    unusable = net.version == 4 and net.prefixlen < 31 and ip in (net.network_address,
                                                                   net.broadcast_address)
    if ip.version != net.version or ip not in net or unusable:
        raise errors.InvalidIpForSubnet(ip_address=address)
    return str(ip)


def _insert(s: Session, subnet: m.Subnet, port_id: str, address: str) -> dict[str, str]:
    """Take the address at once, with a plain INSERT rather than through the session's
    unit of work: a quarter of the time, and nothing needs the allocation as an object."""
    s.execute(_ALLOCATE, {"ip_address": address, "subnet_id": subnet.id,
                          "network_id": subnet.network_id, "port_id": port_id})
    return {"subnet_id": subnet.id, "ip_address": address}


def take(s: Session, subnet: m.Subnet, port_id: str, address: str) -> dict[str, str]:
    """A specific address; a taken one is a conflict the caller sees (after a lost race,
    the retried request finds it taken here)."""
    address = check_address(subnet, address)
    if s.get(m.IPAllocation, (address, subnet.id)) is not None:
        raise errors.IpAddressAlreadyAllocated(ip=address, subnet_id=subnet.id)
    return _insert(s, subnet, port_id, address)


def take_any(s: Session, subnet: m.Subnet, port_id: str, mac: str) -> dict[str, str] | None:
    """A free address of the subnet's pools (SLAAC: the one the MAC gives), or None."""
    if is_auto_address(subnet):
        return take_auto(s, subnet, port_id, mac)
    address = _pick(s, subnet)
    return None if address is None else _insert(s, subnet, port_id, address)


def take_auto(s: Session, subnet: m.Subnet, port_id: str, mac: str) -> dict[str, str]:
    """The address a host with `mac` forms on an auto-address subnet."""
    return _insert(s, subnet, port_id, eui64(subnet.cidr, mac))


def is_auto_address(subnet: m.Subnet) -> bool:
    """An IPv6 subnet whose hosts form their own addresses (SLAAC, DHCPv6-stateless)."""
    return auto_address_modes(subnet.ip_version, subnet.ipv6_address_mode,
                              subnet.ipv6_ra_mode)


def auto_address_modes(ip_version: int, address_mode: str | None, ra_mode: str | None
                       ) -> bool:
    """Whether a subnet of these is an auto-address one: its address mode says so, or
    its router advertisement mode does (Neutron's is_auto_address_subnet)."""
    return ip_version == 6 and (address_mode in SLAAC_MODES or ra_mode in SLAAC_MODES)


def gets_auto_address(device_owner: str) -> bool:
    """Whether a port of this owner takes an address on each auto-address subnet of
    its network: all but a router's interface, which Neutron leaves to the router's
    own advertisements."""
    return device_owner not in ROUTER_INTERFACE_OWNERS


def serves(subnet: m.Subnet, device_owner: str) -> bool:
    """Whether the subnet gives addresses to a port of this owner (the
    subnet-service-types extension): it serves anyone or that owner; a DHCP port also
    any subnet with DHCP on."""
    return (not subnet.service_types or device_owner in subnet.service_types
            or (device_owner == DHCP_OWNER and subnet.enable_dhcp))


def candidates(network_id: str, subnets: list[m.Subnet], device_owner: str
               ) -> list[m.Subnet]:
    """The subnets a port of this owner may take addresses from (`serves`): those
    serving its owner first, then those serving anyone. None of them while the network
    has subnets: Neutron's IpAddressGenerationFailureNoMatchingSubnet."""
    found = [sub for sub in subnets if serves(sub, device_owner)]
    if subnets and not found:
        raise errors.IpAddressGenerationFailureNoMatchingSubnet(
            network_id=network_id, service_type=device_owner or None)
    return sorted(found, key=lambda sub: not sub.service_types)


def allocate(s: Session, network_id: str, port_id: str, mac: str,
             requested: list[dict[str, Any]] | None, subnets: list[m.Subnet],
             device_owner: str = "", auto_addresses: bool = True
             ) -> list[dict[str, str]]:
    """The fixed IPs of a port: those requested, else one address from the first IPv4
    subnet with room and one from the first stateful IPv6 one; and, as Neutron adds
    them to every port but a router's interface, its address on each SLAAC or
    DHCPv6-stateless subnet not requested (`auto_addresses`: a new port's)."""
    eligible = candidates(network_id, subnets, device_owner)
    if requested is None:
        found = _automatic(s, network_id, port_id, mac,
                           [sub for sub in eligible if not is_auto_address(sub)])
    else:
        found = _requested(s, network_id, port_id, mac, requested, eligible)
    if auto_addresses and gets_auto_address(device_owner):
        named = {ip["subnet_id"] for ip in found}
        found += [take_auto(s, sub, port_id, mac) for sub in eligible
                  if is_auto_address(sub) and sub.id not in named]
    return found


def _requested(s: Session, network_id: str, port_id: str, mac: str,
               requested: list[dict[str, Any]], eligible: list[m.Subnet]
               ) -> list[dict[str, str]]:
    by_id = {sub.id: sub for sub in eligible}
    found = []
    for entry in requested:
        subnet = _subnet_for(entry, by_id, network_id)
        if entry.get("ip_address"):
            found.append(take(s, subnet, port_id, entry["ip_address"]))
        else:
            got = take_any(s, subnet, port_id, mac)
            if got is None:
                raise errors.IpAddressGenerationFailure(net_id=network_id)
            found.append(got)
    return found


def _subnet_for(entry: dict[str, Any], by_id: dict[str, m.Subnet], network_id: str
                ) -> m.Subnet:
    if entry.get("subnet_id"):
        subnet = by_id.get(entry["subnet_id"])
        if subnet is None:
            raise errors.InvalidInput(error_message=(
                f"Failed to create port on network {network_id}, because fixed_ips "
                f"included invalid subnet {entry['subnet_id']}"))
        return subnet
    address = entry.get("ip_address")
    if not address:
        raise errors.InvalidInput(error_message="IP allocation requires subnet_id or "
                                                "ip_address")
    for subnet in by_id.values():
        try:
            check_address(subnet, address)
            return subnet
        except errors.NetworkError:
            continue
    raise errors.InvalidIpForNetwork(ip_address=address)


def _automatic(s: Session, network_id: str, port_id: str, mac: str,
               subnets: list[m.Subnet]) -> list[dict[str, str]]:
    """One address of each version, from the first subnet of it with room."""
    found = []
    for version in (4, 6):
        of_version = [sub for sub in subnets if sub.ip_version == version]
        got = next((ip for sub in of_version
                    if (ip := take_any(s, sub, port_id, mac)) is not None), None)
        if got is not None:
            found.append(got)
        elif of_version:
            raise errors.IpAddressGenerationFailure(net_id=network_id)
    return found
