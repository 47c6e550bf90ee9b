"""How a network is carried (ML2's type drivers): a project network gets the first type of
[ml2] tenant_network_types with a free id (a VXLAN VNI from vni_ranges, a VLAN from a
physical network's range); an admin names the provider attributes. An id is taken by
inserting its allocation row, whose primary key is the arbiter between concurrent
creates; the loser's request is retried and picks another."""

from __future__ import annotations

import random
import uuid
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from novalite.conf import CONF
from novalite.db.models import network as m
from novalite.network import errors

TYPES = ("flat", "vlan", "vxlan", "local")
WINDOW = 16


def _ranges(spec: list[str]) -> list[tuple[int, int]]:
    found = []
    for item in spec:
        lo, _, hi = item.partition(":")
        found.append((int(lo), int(hi or lo)))
    return found


VLAN_TAGS = (1, 4094)


def _vlan_ranges() -> dict[str, list[tuple[int, int]]]:
    """Per physical network of [ml2_type_vlan] network_vlan_ranges, its ranges; one
    named without a range has every tag, as in Neutron."""
    found: dict[str, list[tuple[int, int]]] = {}
    for item in CONF.ml2_type_vlan.network_vlan_ranges:
        physnet, *bounds = item.split(":")
        found.setdefault(physnet, [])
        if len(bounds) == 2:
            found[physnet].append((int(bounds[0]), int(bounds[1])))
    return {physnet: ranges or [VLAN_TAGS] for physnet, ranges in found.items()}


def _free_vlan(s: Session, network_id: str, physnets: list[str]
               ) -> tuple[str, str | None, int | None] | None:
    """A free tag of the first of `physnets` that has one, taken."""
    ranges = _vlan_ranges()
    for physnet in physnets:
        taken = set(s.scalars(select(m.VlanAllocation.vlan_id).where(
            m.VlanAllocation.physical_network == physnet)))
        vlan = _free(taken, ranges.get(physnet, []))
        if vlan is not None:
            s.add(m.VlanAllocation(physical_network=physnet, vlan_id=vlan,
                                   network_id=network_id))
            return "vlan", physnet, vlan
    return None


def _free(taken: set[int], ranges: list[tuple[int, int]]) -> int | None:
    free = []
    for lo, hi in ranges:
        for value in range(lo, hi + 1):
            if value not in taken:
                free.append(value)
                if len(free) == WINDOW:
                    return random.choice(free)
    return random.choice(free) if free else None


def _tenant_segment(s: Session, network_id: str) -> tuple[str, str | None, int | None]:
    for network_type in CONF.ml2.tenant_network_types:
        if network_type == "vxlan":
            taken = set(s.scalars(select(m.VxlanAllocation.vxlan_vni)))
            vni = _free(taken, _ranges(CONF.ml2_type_vxlan.vni_ranges))
            if vni is not None:
                s.add(m.VxlanAllocation(vxlan_vni=vni, network_id=network_id))
                return "vxlan", None, vni
        elif network_type == "vlan":
            found = _free_vlan(s, network_id, list(_vlan_ranges()))
            if found is not None:
                return found
        elif network_type == "local":
            return "local", None, None
    raise errors.NoNetworkAvailable()


def _invalid(message: str) -> errors.InvalidInput:
    return errors.InvalidInput(error_message=message)


def _provider_segment(s: Session, network_id: str, network_type: str,
                      physnet: str | None, seg_id: int | None
                      ) -> tuple[str, str | None, int | None]:
    if network_type not in CONF.ml2.type_drivers or network_type not in TYPES:
        raise _invalid(f"network_type value '{network_type}' not supported")
    if network_type == "flat":
        if not physnet:
            raise _invalid("physical_network required for flat provider network")
        allowed = CONF.ml2_type_flat.flat_networks
        if not allowed:
            raise _invalid("Flat provider networks are disabled")
        if "*" not in allowed and physnet not in allowed:
            raise _invalid(f"physical_network '{physnet}' unknown for flat provider network")
        if seg_id is not None:
            raise _invalid("segmentation_id prohibited for flat provider network")
        if s.get(m.FlatAllocation, physnet) is not None:
            raise errors.FlatNetworkInUse(physical_network=physnet)
        s.add(m.FlatAllocation(physical_network=physnet, network_id=network_id))
        return "flat", physnet, None
    if network_type == "vlan":
        return _provider_vlan(s, network_id, physnet, seg_id)
    if network_type == "vxlan":
        if physnet:
            raise _invalid("provider:physical_network specified for vxlan network")
        if seg_id is None:
            return _tenant_vxlan(s, network_id)
        if not 1 <= seg_id <= 2**24 - 1:
            raise _invalid("segmentation_id out of range (1 through 16777215)")
        if s.get(m.VxlanAllocation, seg_id) is not None:
            raise errors.TunnelIdInUse(tunnel_id=seg_id)
        s.add(m.VxlanAllocation(vxlan_vni=seg_id, network_id=network_id))
        return "vxlan", None, seg_id
    return "local", None, None


def _provider_vlan(s: Session, network_id: str, physnet: str | None, seg_id: int | None
                   ) -> tuple[str, str | None, int | None]:
    """ML2's VLAN type driver: a physical network of network_vlan_ranges; a tag in
    1-4094 (any, not only the ranges', for an admin's network); what is left out is
    allocated from the ranges."""
    ranges = _vlan_ranges()
    if physnet and physnet not in ranges:
        raise _invalid(f"physical_network '{physnet}' unknown for VLAN provider network")
    if not physnet and seg_id is not None:
        raise _invalid("segmentation_id requires physical_network for VLAN provider "
                       "network")
    if seg_id is None:
        found = _free_vlan(s, network_id, [physnet] if physnet else list(ranges))
        if found is None:
            raise errors.NoNetworkAvailable()
        return found
    if not VLAN_TAGS[0] <= seg_id <= VLAN_TAGS[1]:
        raise _invalid(f"segmentation_id out of range ({VLAN_TAGS[0]} through "
                       f"{VLAN_TAGS[1]})")
    if s.get(m.VlanAllocation, (physnet, seg_id)) is not None:
        raise errors.VlanIdInUse(vlan_id=seg_id, physical_network=physnet)
    s.add(m.VlanAllocation(physical_network=physnet, vlan_id=seg_id, network_id=network_id))
    return "vlan", physnet, seg_id


def _tenant_vxlan(s: Session, network_id: str) -> tuple[str, str | None, int | None]:
    taken = set(s.scalars(select(m.VxlanAllocation.vxlan_vni)))
    vni = _free(taken, _ranges(CONF.ml2_type_vxlan.vni_ranges))
    if vni is None:
        raise errors.NoNetworkAvailable()
    s.add(m.VxlanAllocation(vxlan_vni=vni, network_id=network_id))
    return "vxlan", None, vni


def allocate(s: Session, network_id: str, provider: dict[str, Any]) -> m.NetworkSegment:
    """The network's segment: the provider attributes an admin gave, else a project one."""
    if provider.get("network_type"):
        kind, physnet, seg_id = _provider_segment(
            s, network_id, provider["network_type"], provider.get("physical_network"),
            provider.get("segmentation_id"))
    else:
        kind, physnet, seg_id = _tenant_segment(s, network_id)
    segment = m.NetworkSegment(id=str(uuid.uuid4()), network_id=network_id,
                               network_type=kind, physical_network=physnet,
                               segmentation_id=seg_id)
    s.add(segment)
    return segment


VXLAN_OVERHEAD = 20 + 30  # the outer IPv4 header, then UDP and VXLAN's own


def max_mtu(network_type: str, physical_network: str | None) -> int:
    """The largest MTU a network of this type can carry, as ML2's type drivers count:
    a tunnel loses its headers from the smaller of global_physnet_mtu and [ml2] path_mtu;
    flat and VLAN networks take the smaller of global_physnet_mtu and their physical
    network's entry of [ml2] physical_network_mtus; local ones the global MTU."""
    physical: int = CONF.global_physnet_mtu
    if network_type == "vxlan":
        return min(m for m in (physical, CONF.ml2.path_mtu) if m > 0) - VXLAN_OVERHEAD
    own = CONF.ml2.physical_network_mtus.get(physical_network or "")
    if network_type in ("flat", "vlan") and own:
        return min(physical, int(own))
    return physical
