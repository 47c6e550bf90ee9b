"""Routers, as Neutron's L3 agent builds them: a namespace `qrouter-<router-id>-<cloud>`
per router on the network node, a veth from each network's bridge for each router port
(the interfaces hold their subnets' gateway addresses, IPv4 and IPv6, the gateway port
its external address and the floating IPs), IPv4 and IPv6 forwarding on, a default
route to the external subnet's gateway, and nftables NAT: SNAT of the project networks
to the gateway address (enable_snat), per floating IP a DNAT to its fixed address and
the SNAT back, and 169.254.169.254:80 redirected to the metadata proxy the network node
serves here. Its interfaces on subnets with an `ipv6_ra_mode` send router
advertisements (novalite.datapath.ra).

The external networks' upstream gateway is `outside`, a namespace on each external
network's wire holding its subnet's gateway address: the Internet as guests see it, and
where a client reaches floating IPs from."""

from __future__ import annotations

import dataclasses
import ipaddress
import json
import os

from novalite.datapath import bridges, linux, names, ra

NAT_TABLE = "novalite_router"
METADATA_ADDRESS, METADATA_PORT = "169.254.169.254", 9697  # where the proxy listens


@dataclasses.dataclass(frozen=True)
class RouterPort:
    port_id: str
    mac: str
    addresses: tuple[str, ...]  # "10.0.0.1/26"
    segment: bridges.Segment
    advertised: tuple[ra.Prefix, ...] = ()  # its subnets with an ipv6_ra_mode


@dataclasses.dataclass(frozen=True)
class RouterConfig:
    router_id: str
    interfaces: tuple[RouterPort, ...]
    gateway: RouterPort | None = None
    next_hop: str | None = None  # the external subnet's gateway
    snat: bool = True
    floating_ips: tuple[tuple[str, str], ...] = ()  # (floating, fixed)


def _addresses(namespace: str, device: str) -> set[str]:
    shown = json.loads(linux.ip(namespace, "-j", "address", "show", "dev", device) or "[]")
    return {f"{a['local']}/{a['prefixlen']}" for link in shown
            for a in link.get("addr_info", []) if a.get("scope") == "global"}


def _address_port(namespace: str, host: str, port: RouterPort,
                  extra: tuple[str, ...] = ()) -> str:
    device = bridges.plug_veth(host, port.segment, port.port_id, namespace, port.mac)
    wanted = {*port.addresses, *extra}
    present = _addresses(namespace, device)
    linux.batch(namespace, [f"address del {a} dev {device}" for a in present - wanted]
                + [f"address add {a} dev {device}" for a in wanted - present])
    for added in sorted(wanted - present):  # neighbours learn the new owner at once
        address = added.split("/")[0]
        if ipaddress.ip_address(address).version == 4:
            linux.run(linux.in_namespace(namespace, [
                "busybox", "arping", "-U", "-c", "1", "-I", device, "-s", address, address]))
    return device


def nat_rules(config: RouterConfig, gateway_device: str | None) -> str:
    """The nft script replacing the router's NAT table."""
    # guests' metadata requests to the proxy in this namespace
    pre = [f"ip daddr {METADATA_ADDRESS} tcp dport 80 redirect to :{METADATA_PORT}"]
    post = []
    if config.gateway is not None and gateway_device is not None:
        for floating, fixed in config.floating_ips:
            pre.append(f"ip daddr {floating} dnat to {fixed}")
            post.append(f'ip saddr {fixed} oifname "{gateway_device}" snat to {floating}')
        own = [a for a in config.gateway.addresses if ipaddress.ip_interface(a).version == 4]
        inside = sorted({str(ipaddress.ip_interface(a).network) for p in config.interfaces
                         for a in p.addresses if ipaddress.ip_interface(a).version == 4})
        if config.snat and own and inside:
            gateway_ip = own[0].split("/")[0]
            post.append(f'oifname "{gateway_device}" ip saddr {{ {", ".join(inside)} }} '
                        f"snat to {gateway_ip}")
    return "\n".join([
        f"table ip {NAT_TABLE}", f"delete table ip {NAT_TABLE}", f"table ip {NAT_TABLE} {{",
        "  chain prerouting {", "    type nat hook prerouting priority dstnat;",
        *(f"    {line}" for line in pre), "  }",
        "  chain postrouting {", "    type nat hook postrouting priority srcnat;",
        *(f"    {line}" for line in post), "  }", "}", ""])


class Routers:
    """The routers this host (the network node) runs, the files of their daemons under
    `directory/<router-id>/`."""

    def __init__(self, host: str, directory: str) -> None:
        self.host = host
        self.directory = directory

    def served(self) -> set[str]:
        head, tail = "qrouter-", f"-{names.prefix()}"
        return {ns[len(head):-len(tail)] for ns in linux.namespaces()
                if ns.startswith(head) and ns.endswith(tail)}

    def ensure(self, config: RouterConfig) -> None:
        namespace = names.router_namespace(config.router_id)
        linux.add_namespace(namespace)
        # No duplicate address detection on the router's ports (their addresses are
        # IPAM's and their MACs the network service's): while a link-local address is
        # tentative, dnsmasq sent its first advertisements from the gateway's global
        # address, which hosts must ignore.
        linux.run(linux.in_namespace(namespace, [
            "sysctl", "-qw", "net.ipv4.ip_forward=1", "net.ipv6.conf.all.forwarding=1",
            "net.ipv6.conf.all.accept_dad=0", "net.ipv6.conf.default.accept_dad=0"]))
        wanted = {names.namespace_device(p.port_id)
                  for p in (*config.interfaces, *([config.gateway] if config.gateway else []))}
        for device in linux.links(namespace):  # ports the router no longer has
            if device.startswith(names.NAMESPACE_DEVICE) and device not in wanted:
                bridges.unplug(self.host,
                               names.PORT_DEVICE + device[len(names.NAMESPACE_DEVICE):])
        for port in config.interfaces:
            _address_port(namespace, self.host, port)
        ra.ensure(namespace, os.path.join(self.directory, config.router_id), [
            ra.Link(names.namespace_device(p.port_id), p.advertised, p.segment.mtu)
            for p in config.interfaces if p.advertised])
        gateway = config.gateway
        gateway_device = names.namespace_device(gateway.port_id) if gateway else None
        # the NAT first: a floating IP answered by the router before its DNAT is there
        # would be the router's own address for a moment (and its ping the router's)
        linux.run(linux.in_namespace(namespace, ["nft", "-f", "-"]),
                  nat_rules(config, gateway_device))
        if gateway is not None:
            gateway_device = _address_port(namespace, self.host, gateway, tuple(
                f"{floating}/32" for floating, _ in config.floating_ips))
            if config.next_hop:
                linux.ip(namespace, "route", "replace", "default", "via", config.next_hop,
                         "dev", gateway_device)

    def remove(self, router_id: str) -> None:
        ra.ensure(names.router_namespace(router_id), os.path.join(self.directory, router_id),
                  [])
        namespace = names.router_namespace(router_id)
        bridges.unplug_namespace(self.host, namespace)
        linux.delete_namespace(namespace)

    def ensure_outside(self, segment: bridges.Segment, address: str) -> None:
        """The upstream gateway of an external network: `address` (its subnet's gateway,
        with prefix) in the outside namespace."""
        namespace = names.outside_namespace()
        linux.add_namespace(namespace)
        port = RouterPort(f"out{segment.network_id}", "fa:16:3e:ff:00:01", (address,), segment)
        _address_port(namespace, self.host, port)
