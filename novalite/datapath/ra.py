"""A router's IPv6 router advertisements, as Neutron's L3 agent sends them with radvd
(neutron/agent/linux/ra.py): on each interface with a subnet whose `ipv6_ra_mode` is
set, the router as default router, the network's MTU, the subnet's DNS servers (RDNSS),
and per subnet:

- slaac: the prefix, on-link and autonomous (A): hosts form their own addresses;
- dhcpv6-stateless: the same, and the O flag: hosts ask DHCPv6 for options only;
- dhcpv6-stateful: the prefix on-link only, and the M flag: hosts ask DHCPv6 for their
  addresses, which the network's DHCP server (novalite.datapath.dhcp) hands out.

radvd is not among the packages this cloud may use; dnsmasq's RA mode is, so a router
that advertises runs a dnsmasq in its namespace that does only that. dnsmasq sets the
M flag only for a prefix it would serve by DHCPv6 itself (a `static` range; it sets O
with it, which M implies anyway), and it would answer every DHCPv6 client: with no
address for most, beside the network's DHCP server. So this one ignores every DHCPv6
client (`--dhcp-ignore=tag:!known`, and it knows none): it is as silent on DHCPv6 as
radvd, and the network's DHCP server is the only one that answers."""

from __future__ import annotations

import dataclasses
import ipaddress
import os

from novalite.datapath import daemons, linux

SLAAC, STATEFUL, STATELESS = "slaac", "dhcpv6-stateful", "dhcpv6-stateless"
# dnsmasq's RA mode of each ipv6_ra_mode: the flags it sends
RANGE_MODES = {SLAAC: "ra-only", STATELESS: "ra-stateless", STATEFUL: "static"}
# Neutron's radvd: sent at most every max_rtr_adv_interval (100 s), and a router for
# three times that (radvd's AdvDefaultLifetime)
INTERVAL, ROUTER_LIFETIME = 100, 300
IPV6_MIN_MTU = 1280


@dataclasses.dataclass(frozen=True)
class Prefix:
    """A subnet the router advertises on one of its interfaces."""

    subnet_id: str
    cidr: str
    ra_mode: str
    dns_nameservers: tuple[str, ...] = ()


@dataclasses.dataclass(frozen=True)
class Link:
    """One of the router's interfaces that advertises (its device in the namespace)."""

    device: str
    prefixes: tuple[Prefix, ...]
    mtu: int | None = None


def command(links: list[Link], directory: str) -> list[str]:
    """dnsmasq's command line advertising `links`."""
    argv = [*daemons.dnsmasq(directory, [link.device for link in links]), "--enable-ra",
            "--dhcp-ignore=tag:!known"]
    for link in links:
        mtu = f"mtu:{link.mtu}," if link.mtu and link.mtu >= IPV6_MIN_MTU else ""
        argv.append(f"--ra-param={link.device},{mtu}{INTERVAL},{ROUTER_LIFETIME}")
        for prefix in link.prefixes:
            net = ipaddress.IPv6Network(prefix.cidr)
            tag = f"subnet-{prefix.subnet_id}"
            argv.append(f"--dhcp-range=set:{tag},{net.network_address},"
                        f"{RANGE_MODES[prefix.ra_mode]},{net.prefixlen}")
            if prefix.dns_nameservers:
                argv.append(f"--dhcp-option=tag:{tag},option6:dns-server,"
                            + ",".join(f"[{a}]" for a in prefix.dns_nameservers))
    return argv


def ensure(namespace: str, directory: str, links: list[Link]) -> None:
    """Advertise `links` from the router's namespace (nothing: no advertiser)."""
    if not links:
        daemons.remove(directory)
        return
    os.makedirs(directory, exist_ok=True)
    daemons.ensure(directory, linux.in_namespace(namespace, command(links, directory)),
                   reread=False)
