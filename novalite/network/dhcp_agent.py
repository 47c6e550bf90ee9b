"""The DHCP agent: makes the datapath's DHCP servers (novalite.datapath.dhcp) match the
database, as Neutron's DHCP agent does from its server's RPC. A network is served once a
compute port on it is bound to a host (a guest may ask), through a DHCP port
(`device_owner network:dhcp`) the agent makes in the network's project, with an address
on each subnet served (dnsmasq answers on a subnet only from an address in it; a subnet
added later gets one too); it stops being served, and loses that port, when its last
one goes.

It runs in the network node's process ([datapath] network_node), as an agent_loop."""

from __future__ import annotations

import collections
import functools
import logging

from sqlalchemy import select
from sqlalchemy.orm import Session

from novalite.datapath import dhcp, linux
from novalite.db.models import network as m
from novalite.network import agent_loop, ports, transaction, wiring
from novalite.network.scope import ADMIN

LOG = logging.getLogger(__name__)
OWNER = "network:dhcp"


def _device_id(host: str, network_id: str) -> str:
    """Neutron's device id of a DHCP port: the agent's host and the network."""
    return f"dhcp-{host}-{network_id}"


class DhcpAgent(agent_loop.SyncLoop):
    name = "dhcp-agent"

    def __init__(self, host: str, directory: str) -> None:
        super().__init__()
        self.host = host
        self.server = dhcp.DhcpServer(host, directory)

    def sync(self) -> None:
        wanted = transaction.read(self._wanted)
        unready = [network_id for network_id, network in wanted.items() if network is None]
        if unready:
            for network_id in unready:
                transaction.write(functools.partial(self._ensure_port, network_id=network_id))
            wanted = transaction.read(self._wanted)
        for network_id, network in wanted.items():
            if network is None:
                continue
            try:
                self.server.ensure(network)
            except linux.DatapathError as exc:  # the other networks are served still
                LOG.error("Cannot serve DHCP on network %s: %s", network_id, exc)
        for network_id in self.server.served() - wanted.keys():
            transaction.write(functools.partial(self._drop_port, network_id=network_id))
            self.server.remove(network_id)
            LOG.info("No longer serving DHCP on network %s", network_id)

    def _wanted(self, s: Session) -> dict[str, dhcp.DhcpNetwork | None]:
        """Per network to serve, what its server should serve; None until its DHCP port
        exists with an address on each subnet served."""
        subnets = _served(s, wiring.bound_networks(s))
        if not subnets:
            return {}
        rows = list(s.scalars(select(m.Port).where(m.Port.network_id.in_(subnets))))
        ips = ports.fixed_ips(s, [row.id for row in rows])
        segments = wiring.segments(s, subnets.keys())
        wanted: dict[str, dhcp.DhcpNetwork | None] = {}
        for network_id, served in subnets.items():
            mine = next((r for r in rows if r.network_id == network_id and self._owns(r)),
                        None)
            by_id = {sub.id: sub for sub in served}
            if mine is None or by_id.keys() - {ip["subnet_id"] for ip in ips.get(mine.id, [])}:
                wanted[network_id] = None
                continue
            hosts = tuple(dhcp.DhcpHost(r.mac_address, ip["ip_address"])
                          for r in rows if r.network_id == network_id and r.id != mine.id
                          for ip in ips.get(r.id, []) if ip["subnet_id"] in by_id
                          and dhcp.leases(by_id[ip["subnet_id"]].ipv6_address_mode))
            wanted[network_id] = dhcp.DhcpNetwork(
                segment=segments[network_id], port_id=mine.id, port_mac=mine.mac_address,
                port_addresses=wiring.addresses(ips.get(mine.id, []),
                                                {sub.id: sub.cidr for sub in served}),
                subnets=tuple(_subnet(sub) for sub in served), hosts=hosts)
        return wanted

    def _owns(self, port: m.Port) -> bool:
        return port.device_owner == OWNER and port.device_id == _device_id(self.host,
                                                                           port.network_id)

    def _ensure_port(self, s: Session, network_id: str) -> None:
        """Make the network's DHCP port, or give the one it has an address on each
        subnet served that it lacks."""
        network = s.get(m.Network, network_id)
        if network is None:
            return
        served = [sub.id for sub in _served(s, {network_id}).get(network_id, [])]
        row = self._port(s, network_id)
        if row is not None:
            _address_port(s, row, served)
            return
        port = ports.create(s, ADMIN, network, network.project_id, {
            "device_owner": OWNER, "device_id": _device_id(self.host, network_id),
            "binding:host_id": self.host, "fixed_ips": [{"subnet_id": sid} for sid in served]})
        made = s.get(m.Port, port["id"])
        assert made is not None
        made.status = "ACTIVE"
        LOG.info("Serving DHCP on network %s from %s", network_id, port["fixed_ips"])

    def _port(self, s: Session, network_id: str) -> m.Port | None:
        return s.scalar(select(m.Port).where(
            m.Port.network_id == network_id, m.Port.device_owner == OWNER,
            m.Port.device_id == _device_id(self.host, network_id)))

    def _drop_port(self, s: Session, network_id: str) -> None:
        row = self._port(s, network_id)
        if row is not None:  # else gone with its network
            ports.delete(s, row, direct=False)


def _address_port(s: Session, row: m.Port, served: list[str]) -> None:
    """Keep the DHCP port's addresses and add one on each served subnet it lacks (one
    added to the network after the port was made)."""
    held = ports.fixed_ips(s, [row.id]).get(row.id, [])
    missing = [sid for sid in served if sid not in {ip["subnet_id"] for ip in held}]
    kept = [{"subnet_id": ip["subnet_id"], "ip_address": ip["ip_address"]} for ip in held]
    ports.update(s, ADMIN, row, {"fixed_ips": kept + [{"subnet_id": sid} for sid in missing]})
    LOG.info("DHCP port of network %s takes addresses on subnets %s", row.network_id, missing)


def _served(s: Session, network_ids: set[str]) -> dict[str, list[m.Subnet]]:
    """The subnets with DHCP on that the networks' servers serve (dhcp.serves), by
    network, oldest first."""
    found: collections.defaultdict[str, list[m.Subnet]] = collections.defaultdict(list)
    for subnet in s.scalars(select(m.Subnet).where(
            m.Subnet.network_id.in_(network_ids), m.Subnet.enable_dhcp.is_(True))
            .order_by(m.Subnet.created_at, m.Subnet.id)):
        if dhcp.serves(subnet.cidr, subnet.ipv6_address_mode, subnet.ipv6_ra_mode):
            found[subnet.network_id].append(subnet)
    return found


def _subnet(row: m.Subnet) -> dhcp.DhcpSubnet:
    return dhcp.DhcpSubnet(
        id=row.id, cidr=row.cidr, gateway_ip=row.gateway_ip,
        dns_nameservers=tuple(row.dns_nameservers or ()),
        host_routes=tuple((r["destination"], r["nexthop"]) for r in row.host_routes or ()))

