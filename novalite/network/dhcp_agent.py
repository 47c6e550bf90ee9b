"""The DHCP agent: makes the datapath's DHCP servers (novalite.datapath.dhcp) match the
database, as Neutron's DHCP agent does from its server's RPC. A network is served once a
compute port on it is bound to a host (a guest may ask), through a DHCP port
(`device_owner network:dhcp`) the agent makes in the network's project; it stops being
served, and loses that port, when its last one goes.

It runs in one network service process ([datapath] dhcp_agent). Writes made in that
process wake it at once (transaction.on_commit); everything else, another process's
writes or a predecessor's leftovers, is found by a full resync every [agent]
polling_interval. A resync compares what exists with what should, so a restarted agent
picks up where the last one stopped and a crash mid-way is repaired by the next pass."""

from __future__ import annotations

import collections
import functools
import ipaddress
import logging
import threading

from sqlalchemy import select
from sqlalchemy.orm import Session

from novalite.conf import CONF
from novalite.datapath import bridges, dhcp, linux
from novalite.db.models import network as m
from novalite.network import ports, transaction
from novalite.network.scope import ADMIN

LOG = logging.getLogger(__name__)
OWNER = "network:dhcp"


def _device_id(host: str, network_id: str) -> str:
    """Neutron's device id of a DHCP port: the agent's host and the network."""
    return f"dhcp-{host}-{network_id}"


class DhcpAgent:
    def __init__(self, host: str, directory: str) -> None:
        self.host = host
        self.server = dhcp.DhcpServer(host, directory)
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        transaction.on_commit(self._wake.set)
        self._thread = threading.Thread(target=self._loop, name="dhcp-agent", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop syncing; the DHCP servers keep answering (a successor adopts them)."""
        transaction.on_commit(self._wake.set, remove=True)
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=30)

    def _loop(self) -> None:
        while not self._stop.is_set():
            self._wake.clear()
            try:
                self.sync()
            except Exception:  # the next pass tries again
                LOG.exception("DHCP agent sync failed")
            self._wake.wait(CONF.agent.polling_interval)

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
        bound = set(s.scalars(select(m.Port.network_id).where(
            m.Port.device_owner.like("compute:%"), m.Port.binding_host_id != "")))
        subnets = collections.defaultdict(list)
        for subnet in s.scalars(select(m.Subnet).where(
                m.Subnet.network_id.in_(bound), m.Subnet.enable_dhcp.is_(True),
                m.Subnet.ip_version == 4).order_by(m.Subnet.created_at, m.Subnet.id)):
            subnets[subnet.network_id].append(subnet)
        if not subnets:
            return {}
        rows = list(s.scalars(select(m.Port).where(m.Port.network_id.in_(subnets))))
        ips = ports.fixed_ips(s, [row.id for row in rows])
        networks = {n.id: n for n in s.scalars(select(m.Network).where(
            m.Network.id.in_(subnets)))}
        segments = {seg.network_id: seg for seg in s.scalars(select(m.NetworkSegment).where(
            m.NetworkSegment.network_id.in_(subnets)))}
        wanted: dict[str, tuple[str | None, dhcp.DhcpNetwork | None]] = {}
        for network_id, served in subnets.items():
            mine = [r for r in rows if r.network_id == network_id and r.device_owner == OWNER
                    and r.device_id == _device_id(self.host, network_id)]
            if not mine:
                wanted[network_id] = (None, None)
                continue
            by_id = {sub.id: sub for sub in served}
            own = [ip for ip in ips.get(mine[0].id, []) if ip["subnet_id"] in by_id]
            hosts = tuple(dhcp.DhcpHost(r.mac_address, ip["ip_address"])
                          for r in rows if r.network_id == network_id and r.id != mine[0].id
                          for ip in ips.get(r.id, []) if ip["subnet_id"] in by_id)
            segment = segments.get(network_id)
            wanted[network_id] = (mine[0].id, dhcp.DhcpNetwork(
                segment=bridges.Segment(
                    network_id, segment.network_type if segment else "local",
                    segment.segmentation_id if segment else None,
                    segment.physical_network if segment else None,
                    networks[network_id].mtu),
                port_id=mine[0].id, port_mac=mine[0].mac_address,
                port_addresses=tuple(
                    f"{ip['ip_address']}/"
                    f"{ipaddress.ip_network(by_id[ip['subnet_id']].cidr).prefixlen}"
                    for ip in own),
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

