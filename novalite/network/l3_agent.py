"""The L3 agent: makes the network node's routers (novalite.datapath.routers) match the
database, as Neutron's L3 agent does. A router is run once one of its interfaces is on
a network with a guest bound somewhere, with its gateway, its floating IPs that have a
fixed address, its metadata proxy, router advertisements for its subnets with an
`ipv6_ra_mode`, and the upstream gateway of its external network in `outside`; it goes
when it no longer qualifies. Runs beside the DHCP agent ([datapath]
network_node)."""

from __future__ import annotations

import ipaddress
import logging
from collections import defaultdict

from sqlalchemy import select
from sqlalchemy.orm import Session

from novalite.datapath import linux, ra, routers
from novalite.datapath.bridges import Segment
from novalite.db.models import network as m
from novalite.network import agent_loop, metadata_proxy, ports, transaction, wiring
from novalite.network.networks import ROUTER_GATEWAY
from novalite.network.routers import INTERFACE

LOG = logging.getLogger(__name__)


class L3Agent(agent_loop.SyncLoop):
    name = "l3-agent"

    def __init__(self, host: str, directory: str) -> None:
        super().__init__()
        self.routers = routers.Routers(host, directory)
        self.proxies = metadata_proxy.MetadataProxies()

    def stop(self) -> None:
        super().stop()
        self.proxies.stop()

    def sync(self) -> None:
        wanted, outside = transaction.read(self._wanted)
        for router_id, config in wanted.items():
            try:
                self.routers.ensure(config)
                self.proxies.ensure(router_id)
            except linux.DatapathError as exc:  # the other routers are served still
                LOG.error("Cannot run router %s: %s", router_id, exc)
        for segment, address in outside:
            self.routers.ensure_outside(segment, address)
        for router_id in self.routers.served() - wanted.keys():
            self.proxies.remove(router_id)
            self.routers.remove(router_id)
            LOG.info("No longer running router %s", router_id)

    def _wanted(self, s: Session) -> tuple[dict[str, routers.RouterConfig],
                                           list[tuple[Segment, str]]]:
        """The routers to run, and the external networks' upstream gateways."""
        bound = wiring.bound_networks(s)
        owned = list(s.scalars(select(m.Port).where(
            m.Port.device_owner.in_((INTERFACE, ROUTER_GATEWAY)))))
        serving = {p.device_id for p in owned if p.device_owner == INTERFACE
                   and p.network_id in bound}
        owned = [p for p in owned if p.device_id in serving]
        if not owned:
            return {}, []
        ips = ports.fixed_ips(s, [p.id for p in owned])
        subnet_ids = {ip["subnet_id"] for found in ips.values() for ip in found}
        subnets = {sub.id: sub for sub in s.scalars(select(m.Subnet).where(
            m.Subnet.id.in_(subnet_ids)))}
        cidrs = {sid: sub.cidr for sid, sub in subnets.items()}
        segments = wiring.segments(s, {p.network_id for p in owned})
        floating: defaultdict[str, list[tuple[str, str]]] = defaultdict(list)
        for fip in s.scalars(select(m.FloatingIP).where(
                m.FloatingIP.router_id.in_(serving), m.FloatingIP.fixed_ip_address.is_not(None))):
            if fip.router_id and fip.fixed_ip_address:
                floating[fip.router_id].append((fip.floating_ip_address, fip.fixed_ip_address))
        rows = {r.id: r for r in s.scalars(select(m.Router).where(m.Router.id.in_(serving)))}

        def port(p: m.Port) -> routers.RouterPort:
            advertised = [subnets[ip["subnet_id"]] for ip in ips.get(p.id, [])]
            return routers.RouterPort(p.id, p.mac_address,
                                      wiring.addresses(ips.get(p.id, []), cidrs),
                                      segments[p.network_id],
                                      tuple(_prefix(sub) for sub in advertised
                                            if sub.ipv6_ra_mode))

        wanted, outside = {}, []
        for router_id, row in rows.items():
            mine = [p for p in owned if p.device_id == router_id]
            gateway = next((p for p in mine if p.device_owner == ROUTER_GATEWAY), None)
            next_hop = None
            if gateway is not None:
                external = [subnets[ip["subnet_id"]] for ip in ips.get(gateway.id, [])
                            if subnets[ip["subnet_id"]].ip_version == 4]
                if external and external[0].gateway_ip:
                    next_hop = external[0].gateway_ip
                    prefix = ipaddress.ip_network(external[0].cidr).prefixlen
                    outside.append((segments[gateway.network_id], f"{next_hop}/{prefix}"))
            wanted[router_id] = routers.RouterConfig(
                router_id=router_id,
                interfaces=tuple(port(p) for p in mine if p.device_owner == INTERFACE),
                gateway=port(gateway) if gateway is not None else None,
                next_hop=next_hop, snat=row.enable_snat,
                floating_ips=tuple(sorted(floating[router_id])))
        return wanted, list(dict.fromkeys(outside))


def _prefix(subnet: m.Subnet) -> ra.Prefix:
    return ra.Prefix(subnet.id, subnet.cidr, subnet.ipv6_ra_mode or "",
                     tuple(subnet.dns_nameservers or ()))
