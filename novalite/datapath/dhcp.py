"""DHCP for one network, as Neutron's DHCP agent serves it with dnsmasq: a namespace
`qdhcp-<network-id>-<cloud>` joined to the network's bridge on the DHCP host by the DHCP
port's veth, and in it a dnsmasq that answers only the ports it is told of (static
ranges: an address is never invented) with the subnet's gateway, DNS servers, host
routes and the network's MTU. Ports come and go by rewriting the hosts and options files
and sending SIGHUP, which dnsmasq answers by reading them again; the process restarts
only when its command line would change (a subnet added or removed)."""

from __future__ import annotations

import contextlib
import dataclasses
import ipaddress
import json
import os
import shutil
import signal
import time

from novalite.conf import CONF
from novalite.datapath import bridges, linux, names

PROGRAM = "dnsmasq"


@dataclasses.dataclass(frozen=True)
class DhcpSubnet:
    id: str
    cidr: str
    gateway_ip: str | None = None
    dns_nameservers: tuple[str, ...] = ()
    host_routes: tuple[tuple[str, str], ...] = ()  # (destination, nexthop)


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
    """What the DHCP server of a network serves: its IPv4 subnets with DHCP on, its own
    port (MAC and addresses with their prefix), and every other port with an address."""

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
        changed = _write(os.path.join(directory, "host"), _hosts_file(network))
        changed |= _write(os.path.join(directory, "opts"), _opts_file(network))
        argv = linux.in_namespace(namespace, self._command(network, device, directory))
        pid = _running(directory)
        if pid is not None and _read(os.path.join(directory, "argv")) == " ".join(argv):
            if changed:
                os.kill(pid, signal.SIGHUP)
            return
        if pid is not None:
            _stop(pid)
        linux.run(argv)  # dnsmasq daemonizes once it listens
        _write(os.path.join(directory, "argv"), " ".join(argv))

    def remove(self, network_id: str) -> None:
        """Stop serving the network: dnsmasq, the port's veth (and the bridge if it was
        the last port), the namespace, the files."""
        directory = self._dir(network_id)
        pid = _running(directory)
        if pid is not None:
            _stop(pid)
        namespace = names.dhcp_namespace(network_id)
        bridges.unplug_namespace(self.host, namespace)
        linux.delete_namespace(namespace)
        shutil.rmtree(directory, ignore_errors=True)

    @staticmethod
    def _command(network: DhcpNetwork, device: str, directory: str) -> list[str]:
        lease = CONF.dhcp_lease_duration
        duration = "infinite" if lease < 0 else f"{lease}s"
        argv = [PROGRAM, "--no-hosts", "--no-resolv", "--port=0", "--conf-file=/dev/null",
                "--user=root", "--bind-interfaces", f"--interface={device}",
                "--except-interface=lo", "--dhcp-authoritative",
                f"--pid-file={directory}/pid", f"--dhcp-hostsfile={directory}/host",
                f"--dhcp-optsfile={directory}/opts", f"--dhcp-leasefile={directory}/leases",
                f"--log-facility={directory}/log", "--log-dhcp"]
        for subnet in network.subnets:
            net = ipaddress.ip_network(subnet.cidr)
            argv.append(f"--dhcp-range=set:subnet-{subnet.id},{net.network_address},static,"
                        f"{net.netmask},{duration}")
        return argv


def _hosts_file(network: DhcpNetwork) -> str:
    return "".join(f"{h.mac},{h.hostname},{h.ip}\n" for h in network.hosts)


def _opts_file(network: DhcpNetwork) -> str:
    lines = []
    for subnet in network.subnets:
        tag = f"tag:subnet-{subnet.id}"
        lines.append(f"{tag},option:router" + (f",{subnet.gateway_ip}"
                                               if subnet.gateway_ip else ""))
        if subnet.dns_nameservers:
            lines.append(f"{tag},option:dns-server,{','.join(subnet.dns_nameservers)}")
        if network.segment.mtu:
            lines.append(f"{tag},option:mtu,{network.segment.mtu}")
        if subnet.host_routes:
            # a client that takes classless routes ignores the router option (RFC 3442)
            routes = list(subnet.host_routes)
            if subnet.gateway_ip:
                routes.append(("0.0.0.0/0", subnet.gateway_ip))
            lines.append(f"{tag},option:classless-static-route,"
                         + ",".join(f"{d},{n}" for d, n in routes))
    return "".join(line + "\n" for line in lines)


def _addresses(namespace: str, device: str) -> list[dict[str, object]]:
    shown = json.loads(linux.ip(namespace, "-j", "address", "show", "dev", device) or "[]")
    return [a for link in shown for a in link.get("addr_info", [])]


def _read(path: str) -> str | None:
    try:
        with open(path) as source:
            return source.read()
    except FileNotFoundError:
        return None


def _write(path: str, content: str) -> bool:
    """Replace the file's content atomically; whether it changed."""
    if _read(path) == content:
        return False
    with open(f"{path}.tmp", "w") as out:
        out.write(content)
    os.replace(f"{path}.tmp", path)
    return True


def _running(directory: str) -> int | None:
    """The pid of this network's dnsmasq, if it runs (its pidfile names a live dnsmasq
    with this directory on its command line)."""
    try:
        pid = int(_read(os.path.join(directory, "pid")) or "")
    except ValueError:
        return None
    return pid if directory.encode() in _cmdline(pid) else None


def _cmdline(pid: int) -> bytes:
    """A process's command line; empty once it has exited (a zombie has none)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
            return cmdline.read()
    except OSError:
        return b""


def _stop(pid: int, timeout: float = 5.0) -> None:
    """SIGTERM, and wait until it is gone (a successor binds the same address)."""
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while _cmdline(pid) and time.monotonic() < deadline:
        time.sleep(0.02)
