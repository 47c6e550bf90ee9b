"""How the network node's agents describe the database's networks to the datapath:
which networks have guests on some host, and how each network is carried."""

from __future__ import annotations

import ipaddress
from collections.abc import Collection

from sqlalchemy import select
from sqlalchemy.orm import Session

from novalite.datapath import bridges
from novalite.db.models import network as m


def bound_networks(s: Session) -> set[str]:
    """Networks with a compute port bound to a host: a guest there may use them."""
    return set(s.scalars(select(m.Port.network_id).where(
        m.Port.device_owner.like("compute:%"), m.Port.binding_host_id != "")))


def segments(s: Session, network_ids: Collection[str]) -> dict[str, bridges.Segment]:
    """Each network's segment as the datapath carries it (`local` without one)."""
    found = {seg.network_id: seg for seg in s.scalars(select(m.NetworkSegment).where(
        m.NetworkSegment.network_id.in_(network_ids)))}
    result = {}
    for network in s.scalars(select(m.Network).where(m.Network.id.in_(network_ids))):
        segment = found.get(network.id)
        result[network.id] = bridges.Segment(
            network.id, segment.network_type if segment else "local",
            segment.segmentation_id if segment else None,
            segment.physical_network if segment else None, network.mtu)
    return result


def addresses(ips: list[dict[str, str]], cidrs: dict[str, str]) -> tuple[str, ...]:
    """A port's fixed IPs on the given subnets (id: CIDR) as "address/prefixlen"."""
    return tuple(f"{ip['ip_address']}/{ipaddress.ip_network(cidrs[ip['subnet_id']]).prefixlen}"
                 for ip in ips if ip["subnet_id"] in cidrs)
