"""Networks: create with a segment, list what the caller sees (its own, shared and
external ones), update, and delete unless ports other than the service's own remain."""

from __future__ import annotations

import functools
import uuid
from collections.abc import Sequence
from typing import Any, NamedTuple

from sqlalchemy import Select, bindparam, or_, select
from sqlalchemy.orm import Session

from novalite.db.models import network as m
from novalite.network import common, errors, records, segments
from novalite.network.records import Record
from novalite.network.scope import Scope

# ports the network service owns on a network and removes with it
SERVICE_OWNERS = ("network:dhcp",)
ROUTER_GATEWAY = "network:router_gateway"  # a router's port on an external network
IPV4_MIN_MTU, IPV6_MIN_MTU = 68, 1280  # what a subnet of each version needs
COLUMNS = {"name", "admin_state_up", "shared", "mtu", "port_security_enabled",
           "availability_zone_hints", "dns_domain", "description", "is_default"}


def get(s: Session, scope: Scope, network_id: str) -> m.Network:
    row = s.get(m.Network, network_id)
    if row is None or not _visible(scope, row):
        raise errors.NetworkNotFound(net_id=network_id)
    return row


class Brief(NamedTuple):
    """What a new port or subnet reads of its network. Loading the whole row as an
    object (its JSON and times parsed) was a tenth of a port create."""

    id: str
    project_id: str
    shared: bool
    external: bool
    port_security_enabled: bool


_BRIEF = select(*(m.Network.__table__.c[name] for name in Brief._fields)).where(
    m.Network.id == bindparam("network_id"))


def brief(s: Session, scope: Scope, network_id: str) -> Brief:
    """Read once per transaction: a port create asks for it as its policy target and
    again to make the port."""
    known: dict[str, Brief | None] = s.info.setdefault("network_briefs", {})
    if network_id not in known:
        row = s.execute(_BRIEF, {"network_id": network_id}).first()
        known[network_id] = None if row is None else Brief(*row)
    found = known[network_id]
    if found is None or not _visible(scope, found):
        raise errors.NetworkNotFound(net_id=network_id)
    return found


def _visible(scope: Scope, network: m.Network | Brief) -> bool:
    return scope.owns(network.project_id) or network.shared or network.external


def _segment(s: Session, network_id: str) -> m.NetworkSegment | None:
    return s.scalars(select(m.NetworkSegment).where(
        m.NetworkSegment.network_id == network_id)).first()


def record(s: Session, row: m.Network) -> Record:
    subnet_ids = list(s.scalars(select(m.Subnet.id).where(m.Subnet.network_id == row.id)))
    return records.network(row, subnet_ids, _segment(s, row.id))


# Built once: every boot without a named network lists the project's networks twice.
_SUBNETS_OF = select(m.Subnet.id, m.Subnet.network_id).where(
    m.Subnet.network_id.in_(bindparam("ids", expanding=True)))
_SEGMENTS_OF = select(m.NetworkSegment.__table__).where(
    m.NetworkSegment.network_id.in_(bindparam("ids", expanding=True)))
# What a caller sees: an admin's every network, anyone's their own, the shared and the
# external ones.
_ALL = select(m.Network.__table__)
_VISIBLE = _ALL.where(or_(m.Network.project_id == bindparam("project_id"), m.Network.shared,
                          m.Network.external))


@functools.lru_cache(maxsize=256)
def _list_statement(is_admin: bool, narrowed: tuple[tuple[str, bool], ...]) -> Select[Any]:
    """A list's statement, by who lists and the columns it narrows (to one value, or
    among several), in column order: building a statement cost more than running it,
    and an IN of one value cost a rewrite of the statement's text at each run."""
    query = _ALL if is_admin else _VISIBLE
    for index, (name, among) in enumerate(narrowed):
        column = m.Network.__table__.c[name]
        query = query.where(column.in_(bindparam(f"equals_{index}", expanding=True))
                            if among else column == bindparam(f"equals_{index}"))
    return query


def list_records(s: Session, scope: Scope,
                 equals: Sequence[tuple[str, list[Any]]] = ()) -> list[Record]:
    """The networks the caller sees, narrowed in SQL by each (column, values) of `equals`
    (a column's value among the values). Read as Core rows (the records need the columns
    only, not ORM objects)."""
    connection = s.connection()
    equals = sorted(equals, key=lambda narrowing: narrowing[0])
    params: dict[str, Any] = {"project_id": scope.project_id}
    params.update((f"equals_{i}", values[0] if len(values) == 1 else values)
                  for i, (_, values) in enumerate(equals))
    statement = _list_statement(scope.is_admin, tuple(
        (column, len(values) != 1) for column, values in equals))
    rows = connection.execute(statement, params).all()
    if not rows:
        return []
    ids = [r.id for r in rows]
    subnets: dict[str, list[str]] = {i: [] for i in ids}
    for sid, nid in connection.execute(_SUBNETS_OF, {"ids": ids}):
        subnets[nid].append(sid)
    segs = {seg.network_id: seg for seg in connection.execute(_SEGMENTS_OF, {"ids": ids})}
    return [records.network(r, subnets[r.id], segs.get(r.id)) for r in rows]


def create(s: Session, project_id: str, values: dict[str, Any], provider: dict[str, Any],
           external: bool = False) -> Record:
    common.check_quota(s, project_id, "network")
    common.check_availability_zones(values.get("availability_zone_hints"))
    row = m.Network(id=str(uuid.uuid4()), project_id=project_id, external=external,
                    **{k: v for k, v in values.items() if k in COLUMNS and k != "mtu"})
    s.add(row)
    s.flush()
    segment = segments.allocate(s, row.id, provider)
    row.mtu = _mtu(segment, values.get("mtu"))
    s.flush()
    return records.network(row, [], segment)


def update(s: Session, row: m.Network, values: dict[str, Any],
           external: bool | None) -> Record:
    changes = {k: v for k, v in values.items() if k in COLUMNS}
    if external is not None:
        changes["external"] = external
    _check_still_usable(s, row, changes)
    if "mtu" in changes:
        check_subnets_fit(s, row.id, changes["mtu"])
        segment = _segment(s, row.id)
        if segment is not None:
            changes["mtu"] = _mtu(segment, changes["mtu"])
    common.update(row, changes)
    return record(s, row)


def _mtu(segment: m.NetworkSegment, requested: int | None) -> int:
    """The MTU asked for (0 or none: the largest), if the segment can carry it."""
    largest = segments.max_mtu(segment.network_type, segment.physical_network)
    if requested and requested > largest:
        raise errors.InvalidInput(error_message=f"Requested MTU is too big, maximum is "
                                                f"{largest}")
    return requested or largest


def check_subnets_fit(s: Session, network_id: str, mtu: int,
                      ip_versions: tuple[int, ...] | None = None) -> None:
    """Neutron's refusal of an MTU too small for a subnet of the network: any below
    IPv4's minimum, or below IPv6's with an IPv6 subnet. `ip_versions`: those of the
    subnets to check (default: the network's)."""
    if not mtu or mtu >= IPV6_MIN_MTU:
        return
    if ip_versions is None:
        ip_versions = tuple(s.scalars(select(m.Subnet.ip_version).where(
            m.Subnet.network_id == network_id)))
    if ip_versions and mtu < IPV4_MIN_MTU:
        raise errors.NetworkMTUSubnetConflict(net_id=network_id, mtu=IPV4_MIN_MTU)
    if 6 in ip_versions:
        raise errors.NetworkMTUSubnetConflict(net_id=network_id, mtu=IPV6_MIN_MTU)


def _check_still_usable(s: Session, row: m.Network, changes: dict[str, Any]) -> None:
    """Neutron's refusals: unsharing a network other projects have ports on, and making
    internal an external network routers have their gateways on."""
    if row.shared and changes.get("shared") is False and s.scalars(select(m.Port.id).where(
            m.Port.network_id == row.id, m.Port.project_id != row.project_id,
            m.Port.device_owner.not_in(SERVICE_OWNERS))).first():
        raise errors.InvalidSharedSetting(network=row.name or row.id)
    if row.external and changes.get("external") is False and s.scalars(select(m.Port.id).where(
            m.Port.network_id == row.id, m.Port.device_owner == ROUTER_GATEWAY)).first():
        raise errors.ExternalNetworkInUse(net_id=row.id)


def delete(s: Session, row: m.Network) -> None:
    in_use = s.scalars(select(m.Port.id).where(
        m.Port.network_id == row.id, m.Port.device_owner.not_in(SERVICE_OWNERS))).first()
    if in_use is not None:
        raise errors.NetworkInUse(net_id=row.id)
    for port in s.scalars(select(m.Port).where(m.Port.network_id == row.id)):
        s.delete(port)
    for subnet in s.scalars(select(m.Subnet).where(m.Subnet.network_id == row.id)):
        s.delete(subnet)
    s.flush()
    s.delete(row)
