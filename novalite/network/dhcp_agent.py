"""The DHCP agent: makes the datapath's DHCP servers (novalite.datapath.dhcp) match the
database, as Neutron's DHCP agent does from its server's RPC. A network is served once a
compute port on it is bound to a host (a guest may ask), through a DHCP port
(`device_owner network:dhcp`) the agent makes in the network's project; it stops being
served, and loses that port, when its last one goes.

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
        missing = [net for net, (port, _) in wanted.items() if port is None]
        if missing:
            for network_id in missing:
                transaction.write(functools.partial(self._make_port, network_id=network_id))
            wanted = transaction.read(self._wanted)
        for network_id, (_, network) in wanted.items():
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

    def _wanted(self, s: Session) -> dict[str, tuple[str | None, dhcp.DhcpNetwork | None]]:
        """Per network to serve: its DHCP port's id (None: not made yet) and what its
        server should serve (None until the port exists)."""
        subnets = collections.defaultdict(list)
        for subnet in s.scalars(select(m.Subnet).where(
                m.Subnet.network_id.in_(wiring.bound_networks(s)), m.Subnet.enable_dhcp.is_(True),
                m.Subnet.ip_version == 4).order_by(m.Subnet.created_at, m.Subnet.id)):
            subnets[subnet.network_id].append(subnet)
        if not subnets:
            return {}
        rows = list(s.scalars(select(m.Port).where(m.Port.network_id.in_(subnets))))
        ips = ports.fixed_ips(s, [row.id for row in rows])
        segments = wiring.segments(s, subnets.keys())
        wanted: dict[str, tuple[str | None, dhcp.DhcpNetwork | None]] = {}
        for network_id, served in subnets.items():
            mine = [r for r in rows if r.network_id == network_id and r.device_owner == OWNER
                    and r.device_id == _device_id(self.host, network_id)]
            if not mine:
                wanted[network_id] = (None, None)
                continue
            by_id = {sub.id: sub for sub in served}
            hosts = tuple(dhcp.DhcpHost(r.mac_address, ip["ip_address"])
                          for r in rows if r.network_id == network_id and r.id != mine[0].id
                          for ip in ips.get(r.id, []) if ip["subnet_id"] in by_id)
            wanted[network_id] = (mine[0].id, dhcp.DhcpNetwork(
                segment=segments[network_id],
                port_id=mine[0].id, port_mac=mine[0].mac_address,
                port_addresses=wiring.addresses(ips.get(mine[0].id, []),
                                                {sub.id: sub.cidr for sub in served}),
                subnets=tuple(_subnet(sub) for sub in served),
                hosts=hosts))
        return wanted

    def _make_port(self, s: Session, network_id: str) -> None:
        network = s.get(m.Network, network_id)
        if network is None:
            return
        served = s.scalars(select(m.Subnet.id).where(
            m.Subnet.network_id == network_id, m.Subnet.enable_dhcp.is_(True),
            m.Subnet.ip_version == 4))
        port = ports.create(s, ADMIN, network, network.project_id, {
            "device_owner": OWNER, "device_id": _device_id(self.host, network_id),
            "binding:host_id": self.host, "fixed_ips": [{"subnet_id": sid} for sid in served]})
        row = s.get(m.Port, port["id"])
        assert row is not None
        row.status = "ACTIVE"
        LOG.info("Serving DHCP on network %s from %s", network_id, port["fixed_ips"])

    def _drop_port(self, s: Session, network_id: str) -> None:
        row = s.scalar(select(m.Port).where(
            m.Port.network_id == network_id, m.Port.device_owner == OWNER,
            m.Port.device_id == _device_id(self.host, network_id)))
        if row is not None:  # else gone with its network
            ports.delete(s, row, direct=False)


def _subnet(row: m.Subnet) -> dhcp.DhcpSubnet:
    return dhcp.DhcpSubnet(
        id=row.id, cidr=row.cidr, gateway_ip=row.gateway_ip,
        dns_nameservers=tuple(row.dns_nameservers or ()),
        host_routes=tuple((r["destination"], r["nexthop"]) for r in row.host_routes or ()))

