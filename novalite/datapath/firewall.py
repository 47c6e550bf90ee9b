"""Security groups on a host, as nftables rules in the host's namespace: stateful
(conntrack), default deny in, the port's rules out and in, and anti-spoofing (a port
sends only from its MAC and addresses and its allowed address pairs). As in Neutron,
some traffic passes whatever the groups say, so that a guest can configure itself:
DHCP and DHCPv6 as a client, router advertisements and neighbour discovery in; and some
never does: a guest answering as a DHCP server or advertising itself as a router.

Bridged traffic is seen by two tables. The bridge family knows the bridge ports a frame
comes in and goes out by, but has no conntrack here (no nf_conntrack_bridge); so its
`marks` chain writes them into the packet mark (source port's index in the high 16
bits, destination's in the low), and drops spoofed frames. br_netfilter (this
namespace's `bridge-nf-call-iptables`) then passes the packet to the inet family's
forward hook, where conntrack is, and the per-port chains match on the mark. A packet
between two ports passes the sender's egress chain (which returns when a rule allows)
and the receiver's ingress chain. The whole ruleset is replaced in one `nft -f`
transaction, so a change never leaves a moment without rules."""

from __future__ import annotations

import dataclasses
import hashlib
import ipaddress
import re

from novalite.datapath import linux, names

BRIDGE_TABLE, INET_TABLE = "novalite_ports", "novalite_security_groups"
PROTOCOLS = {"tcp": 6, "udp": 17, "icmp": 1, "icmpv6": 58, "ipv6-icmp": 58, "sctp": 132,
             "gre": 47, "esp": 50, "ah": 51}
ANY = ("any", "", None)
# ICMPv6 a port needs whatever its groups say (Neutron's ICMPV6_ALLOWED_INGRESS_TYPES and
# ICMPV6_ALLOWED_EGRESS_TYPES): neighbour discovery, router adverts in, solicitations out.
ND_TYPES = "nd-router-advert, nd-neighbor-solicit, nd-neighbor-advert, mld-listener-query"
ND_EGRESS_TYPES = ("nd-router-solicit, nd-neighbor-solicit, nd-neighbor-advert, "
                   "mld-listener-query")
# ICMPv6 a port sends from :: before it has an address (Neutron's
# ICMPV6_ALLOWED_UNSPEC_ADDR_TYPES): multicast listener reports, and the neighbour
# solicitations of duplicate address detection.
UNSPECIFIED_SOURCE_TYPES = "mld-listener-report, nd-neighbor-solicit, mld2-listener-report"
# A port is a DHCP client whatever its groups say (Neutron's DHCP_CLIENT rules): its
# requests out, its server's answers in. A DHCPv6 answer is unicast to a request sent to
# a multicast group, which conntrack cannot match; it comes from the server's link-local
# address.
DHCP_CLIENT_EGRESS = ("udp sport 68 udp dport 67 return", "udp sport 546 udp dport 547 return")
DHCP_CLIENT_INGRESS = ("udp sport 67 udp dport 68 accept",
                       "ip6 saddr fe80::/64 udp sport 547 udp dport 546 accept")


@dataclasses.dataclass(frozen=True)
class Rule:
    direction: str  # ingress: traffic to the port; egress: from it
    ethertype: str = "IPv4"
    protocol: str | None = None
    port_range_min: int | None = None
    port_range_max: int | None = None
    remote_ip_prefix: str | None = None
    remote_ips: tuple[str, ...] | None = None  # a remote group's members' addresses


@dataclasses.dataclass(frozen=True)
class PortFilter:
    port_id: str
    mac: str
    ips: tuple[str, ...]
    allowed_pairs: tuple[tuple[str, str], ...] = ()  # (mac, address or CIDR)
    secured: bool = True  # port_security_enabled
    rules: tuple[Rule, ...] = ()


def _protocol(rule: Rule) -> list[str]:
    """The rule's protocol and ports (for ICMP: type and code) as nft matches."""
    if rule.protocol in ANY:
        return []
    number = PROTOCOLS.get(str(rule.protocol).lower()) or int(str(rule.protocol))
    matches = [f"meta l4proto {number}"]
    if number in (6, 17, 132) and rule.port_range_min is not None:
        high = rule.port_range_max if rule.port_range_max is not None else rule.port_range_min
        ports = str(rule.port_range_min) if high == rule.port_range_min \
            else f"{rule.port_range_min}-{high}"
        matches.append(f"th dport {ports}")
    elif number in (1, 58) and rule.port_range_min is not None:
        family = "icmp" if number == 1 else "icmpv6"
        matches.append(f"{family} type {rule.port_range_min}")
        if rule.port_range_max is not None:
            matches.append(f"{family} code {rule.port_range_max}")
    return matches


def _rule(rule: Rule, verdict: str) -> str | None:
    """One nft rule line; None for a rule that can match nothing (an empty group)."""
    family = "ip" if rule.ethertype == "IPv4" else "ip6"
    side = "saddr" if rule.direction == "ingress" else "daddr"
    matches = [f"meta nfproto {'ipv4' if family == 'ip' else 'ipv6'}"]
    if rule.remote_ips is not None:
        members = [a for a in rule.remote_ips
                   if ipaddress.ip_address(a).version == (4 if family == "ip" else 6)]
        if not members:
            return None
        matches.append(f"{family} {side} {{ {', '.join(members)} }}")
    elif rule.remote_ip_prefix:
        matches.append(f"{family} {side} {rule.remote_ip_prefix}")
    return " ".join(matches + _protocol(rule) + [verdict])


def _sources(port: PortFilter, version: int) -> list[str]:
    found = [a for a in port.ips if ipaddress.ip_address(a).version == version]
    found += [cidr for _, cidr in port.allowed_pairs
              if ipaddress.ip_network(cidr, strict=False).version == version]
    return found


def ruleset(ports: list[PortFilter]) -> str:
    """The nft script that replaces both tables with the rules of `ports`; the inet
    table's comment is the digest of the rest (digest() reads it back), so an agent
    sees whether what is installed is what it would install, whoever installed it."""
    secured = [p for p in ports if p.secured]
    marks, chains, dispatch = [], [], []
    for index, port in enumerate(secured, start=1):
        device = names.port_device(port.port_id)
        macs = sorted({port.mac, *(mac for mac, _ in port.allowed_pairs)})
        v4, v6 = _sources(port, 4), _sources(port, 6)
        marks += [
            f'iifname "{device}" ether saddr != {{ {", ".join(macs)} }} drop',
            # a DHCP client has no address yet; a guest is never a DHCP server (v4 or
            # v6) nor a router advertising itself
            f'iifname "{device}" ip saddr 0.0.0.0 udp dport 67 accept',
            f'iifname "{device}" udp sport {{ 67, 547 }} drop',
            f'iifname "{device}" icmpv6 type nd-router-advert drop',
            f'iifname "{device}" ether type ip ip saddr != {{ {", ".join(v4)} }} drop'
            if v4 else f'iifname "{device}" ether type ip drop',
            f'iifname "{device}" arp saddr ip != {{ {", ".join(v4)} }} drop'
            if v4 else f'iifname "{device}" ether type arp drop',
        ]
        marks += [
            f'iifname "{device}" ip6 saddr :: ip6 daddr ff02::/16 '
            f"icmpv6 type {{ {UNSPECIFIED_SOURCE_TYPES} }} accept",
            # a port with no IPv6 address still has its link-local one
            f'iifname "{device}" ip6 saddr != {{ {", ".join(["fe80::/10", *v6])} }} drop',
        ]
        marks += [f'iifname "{device}" meta mark set meta mark & 0x0000ffff | {index << 16:#010x}',
                  f'oifname "{device}" meta mark set meta mark & 0xffff0000 | {index:#010x}']
        dispatch += [f"meta mark & 0xffff0000 == {index << 16:#010x} jump egress_{index}",
                     f"meta mark & 0x0000ffff == {index:#010x} jump ingress_{index}"]
        egress = [line for r in port.rules if r.direction == "egress"
                  if (line := _rule(r, "return"))]
        ingress = [line for r in port.rules if r.direction == "ingress"
                   if (line := _rule(r, "accept"))]
        chains += [f"  chain egress_{index} {{",
                   f"    icmpv6 type {{ {ND_EGRESS_TYPES} }} return",
                   *(f"    {line}" for line in DHCP_CLIENT_EGRESS),
                   *(f"    {line}" for line in egress),
                   "    drop", "  }",
                   f"  chain ingress_{index} {{",
                   *(f"    {line}" for line in DHCP_CLIENT_INGRESS),
                   f"    icmpv6 type {{ {ND_TYPES} }} accept",
                   *(f"    {line}" for line in ingress), "    drop", "  }"]
    body = [
        f"table bridge {BRIDGE_TABLE} {{",
        "  chain marks {", "    type filter hook forward priority -10; policy accept;",
        *(f"    {line}" for line in marks), "  }", "}",
        f"table inet {INET_TABLE} {{", "  comment \"{digest}\"",
        "  chain forward {", "    type filter hook forward priority 0; policy accept;",
        "    meta mark 0 accept",
        "    ct state invalid drop", "    ct state established,related accept",
        *(f"    {line}" for line in dispatch), "  }",
        *chains, "}", ""]
    text = "\n".join(body)
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    return "\n".join([
        # declaring first makes the deletes valid on a namespace that has neither yet
        f"table bridge {BRIDGE_TABLE}", f"delete table bridge {BRIDGE_TABLE}",
        f"table inet {INET_TABLE}", f"delete table inet {INET_TABLE}",
        text.replace("{digest}", digest)])


def digest(script: str) -> str | None:
    """The digest a script (or `nft list` output) carries, None without one."""
    found = re.search(r'comment "([0-9a-f]{16})"', script)
    return found.group(1) if found else None


def installed(namespace: str) -> str | None:
    """The digest of the rules installed in the namespace (None: none, as in one that
    was just made)."""
    shown = linux.output(linux.in_namespace(namespace, [
        "nft", "list", "table", "inet", INET_TABLE]))
    return digest(shown) if shown is not None else None


def apply(namespace: str, script: str) -> None:
    """Install a ruleset() script in a host's namespace (plugging made it)."""
    linux.run(linux.in_namespace(namespace, [
        "sysctl", "-qw", "net.bridge.bridge-nf-call-iptables=1",
        "net.bridge.bridge-nf-call-ip6tables=1"]))
    linux.run(linux.in_namespace(namespace, ["nft", "-f", "-"]), script)
