"""DHCP for one network, as Neutron's DHCP agent serves it with dnsmasq: a namespace
`qdhcp-<network-id>-<cloud>` joined to the network's bridge on the DHCP host by the DHCP
port's veth, and in it a dnsmasq that answers only the ports it is told of (static
ranges: an address is never invented) with the subnet's gateway, DNS servers, host
routes and the network's MTU. Ports come and go by rewriting the hosts and options files
and sending SIGHUP, which dnsmasq answers by reading them again; the process restarts
only when its command line would change (a subnet added or removed).

IPv6 subnets are served by DHCPv6 from the same dnsmasq as Neutron's are (`serves`):
dhcpv6-stateful ones hand each port the address IPAM gave it (dnsmasq finds its line
by the MAC its neighbour table has for the client's link-local address, soliciting it
when it has none yet: a client's first request may get no address, and it asks again,
as DHCPv6 clients do), dhcpv6-stateless ones only options (the DNS servers: their hosts
form their addresses from the router's advertisements), and SLAAC ones are not served.
The default router and the MTU reach IPv6 hosts in the router's advertisements
(novalite.datapath.ra), not here."""

from __future__ import annotations

import dataclasses
import ipaddress
import json
import os

from novalite.conf import CONF
from novalite.datapath import bridges, daemons, linux, names

STATEFUL, STATELESS = "dhcpv6-stateful", "dhcpv6-stateless"


@dataclasses.dataclass(frozen=True)
class DhcpSubnet:
    id: str
    cidr: str
    gateway_ip: str | None = None
    dns_nameservers: tuple[str, ...] = ()
    host_routes: tuple[tuple[str, str], ...] = ()  # (destination, nexthop)

    @property
    def version(self) -> int:
        return ipaddress.ip_network(self.cidr).version


def serves(cidr: str, address_mode: str | None, ra_mode: str | None) -> bool:
    """Whether a network's dnsmasq serves a subnet with DHCP on, as Neutron's does: IPv4,
    and IPv6 in a DHCPv6 address mode or in none at all (neither mode set: Neutron's
    static DHCPv6 of old); never SLAAC, nor a prefix longer than dnsmasq's /64."""
    net = ipaddress.ip_network(cidr)
    if net.version == 4:
        return True
    stateful = address_mode in (STATEFUL, STATELESS) or not (address_mode or ra_mode)
    return stateful and net.prefixlen >= 64


def leases(address_mode: str | None) -> bool:
    """Whether a served subnet hands out addresses (its ports are in the hosts file): all
    but DHCPv6-stateless ones, whose hosts ask only for options."""
    return address_mode != STATELESS


@dataclasses.dataclass(frozen=True)
class DhcpHost:
    mac: str
    ip: str

    @property
    def hostname(self) -> str:
        """Neutron's name for a port without a DNS name."""
        return "host-" + self.ip.replace(".", "-").replace(":", "-")


@dataclasses.dataclass(frozen=True)
class DhcpNetwork:
    """What the DHCP server of a network serves: its subnets with DHCP on that it serves,
    its own port (MAC and addresses with their prefix), and every other port with an
    address it leases."""

    segment: bridges.Segment
    port_id: str
    port_mac: str
    port_addresses: tuple[str, ...]  # "10.0.0.2/26"
    subnets: tuple[DhcpSubnet, ...]
    hosts: tuple[DhcpHost, ...]


class DhcpServer:
    """The DHCP servers this host runs, one per network, their files under
    `directory/<network-id>/`."""

    def __init__(self, host: str, directory: str) -> None:
        self.host = host
        self.directory = directory

    def _dir(self, network_id: str) -> str:
        return os.path.join(self.directory, network_id)

    def served(self) -> set[str]:
        """The networks whose DHCP namespace exists (made by this host or a predecessor)."""
        head, tail = "qdhcp-", f"-{names.prefix()}"
        return {ns[len(head):-len(tail)] for ns in linux.namespaces()
                if ns.startswith(head) and ns.endswith(tail)}

    def ensure(self, network: DhcpNetwork) -> None:
        """Serve `network` as described, starting or reloading dnsmasq as needed."""
        network_id = network.segment.network_id
        namespace = names.dhcp_namespace(network_id)
        linux.add_namespace(namespace)
        device = bridges.plug_veth(self.host, network.segment, network.port_id, namespace,
                                   network.port_mac)
        present = {f"{a['local']}/{a['prefixlen']}" for a in _addresses(namespace, device)}
        linux.batch(namespace, [f"address add {address} dev {device}"
                                for address in network.port_addresses
                                if address not in present])
        directory = self._dir(network_id)
        os.makedirs(directory, exist_ok=True)
        changed = daemons.write(os.path.join(directory, "host"), _hosts_file(network))
        changed |= daemons.write(os.path.join(directory, "opts"), _opts_file(network))
        daemons.ensure(directory, linux.in_namespace(
            namespace, self._command(network, device, directory)), changed)

    def remove(self, network_id: str) -> None:
        """Stop serving the network: dnsmasq, the port's veth (and the bridge if it was
        the last port), the namespace, the files."""
        daemons.remove(self._dir(network_id))
        namespace = names.dhcp_namespace(network_id)
        bridges.unplug_namespace(self.host, namespace)
        linux.delete_namespace(namespace)

    @staticmethod
    def _command(network: DhcpNetwork, device: str, directory: str) -> list[str]:
        lease = CONF.dhcp_lease_duration
        duration = "infinite" if lease < 0 else f"{lease}s"
        argv = [*daemons.dnsmasq(directory, [device]), "--dhcp-authoritative",
                f"--dhcp-hostsfile={directory}/host", f"--dhcp-optsfile={directory}/opts",
                "--log-dhcp"]
        for subnet in network.subnets:
            net = ipaddress.ip_network(subnet.cidr)
            # IPv4 names its netmask, IPv6 its prefix length
            mask = net.netmask if net.version == 4 else net.prefixlen
            argv.append(f"--dhcp-range=set:subnet-{subnet.id},{net.network_address},static,"
                        f"{mask},{duration}")
        return argv


def _hosts_file(network: DhcpNetwork) -> str:
    """A line per port and address, IPv6 ones in brackets (a port on two subnets has
    two lines with its MAC: dnsmasq picks the one of the asking protocol)."""
    return "".join(f"{h.mac},{h.hostname},{_literal(h.ip)}\n" for h in network.hosts)


def _literal(address: str) -> str:
    return f"[{address}]" if ipaddress.ip_address(address).version == 6 else address


def _opts_file(network: DhcpNetwork) -> str:
    return "".join(f"{line}\n" for subnet in network.subnets
                   for line in (_v4_options(subnet, network.segment.mtu)
                                if subnet.version == 4 else _v6_options(subnet)))


def _v4_options(subnet: DhcpSubnet, mtu: int | None) -> list[str]:
    tag = f"tag:subnet-{subnet.id}"
    lines = [f"{tag},option:router" + (f",{subnet.gateway_ip}" if subnet.gateway_ip else "")]
    if subnet.dns_nameservers:
        lines.append(f"{tag},option:dns-server,{','.join(subnet.dns_nameservers)}")
    if mtu:
        lines.append(f"{tag},option:mtu,{mtu}")
    if subnet.host_routes:
        # a client that takes classless routes ignores the router option (RFC 3442)
        routes = list(subnet.host_routes)
        if subnet.gateway_ip:
            routes.append(("0.0.0.0/0", subnet.gateway_ip))
        lines.append(f"{tag},option:classless-static-route,"
                     + ",".join(f"{d},{n}" for d, n in routes))
    return lines


def _v6_options(subnet: DhcpSubnet) -> list[str]:
    """Only the DNS servers: the default router, the routes and the MTU are the router
    advertisements' to tell."""
    if not subnet.dns_nameservers:
        return []
    return [f"tag:subnet-{subnet.id},option6:dns-server,"
            + ",".join(map(_literal, subnet.dns_nameservers))]


def _addresses(namespace: str, device: str) -> list[dict[str, object]]:
    shown = json.loads(linux.ip(namespace, "-j", "address", "show", "dev", device) or "[]")
    return [a for link in shown for a in link.get("addr_info", [])]
