"""Security groups and their rules. Every project has a `default` group, made on first
need with Neutron's default rules (all egress; ingress from members of the group), once
even when two requests race for it (the `default_security_group` primary key)."""

from __future__ import annotations

import ipaddress
import uuid
from typing import Any

from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session

from novalite.db.models import network as m
from novalite.network import common, errors, records
from novalite.network.records import Record
from novalite.network.scope import Scope

# Neutron's protocol names and the IANA numbers they stand for
PROTOCOLS = {"ah": 51, "dccp": 33, "egp": 8, "esp": 50, "gre": 47, "hopopt": 0, "icmp": 1,
             "igmp": 2, "ipip": 4, "ipv6-encap": 41, "ipv6-frag": 44, "ipv6-icmp": 58,
             "icmpv6": 58, "ipv6-nonxt": 59, "ipv6-opts": 60, "ipv6-route": 43, "ospf": 89,
             "pgm": 113, "rsvp": 46, "sctp": 132, "tcp": 6, "udp": 17, "udplite": 136,
             "vrrp": 112}
PORT_PROTOCOLS = {"tcp", "udp", "sctp", "dccp", "udplite", "6", "17", "132", "33", "136"}
ICMP_PROTOCOLS = {"icmp", "icmpv6", "ipv6-icmp", "1", "58"}
DIRECTIONS = ("ingress", "egress")
ETHERTYPES = ("IPv4", "IPv6")
_DEFAULTS = m.DefaultSecurityGroup.__table__.c
_DEFAULT_ID = select(_DEFAULTS.security_group_id).where(
    _DEFAULTS.project_id == bindparam("project_id"))  # built once (see common)


def get(s: Session, scope: Scope, group_id: str) -> m.SecurityGroup:
    return common.owned(s.get(m.SecurityGroup, group_id), scope,
                        errors.SecurityGroupNotFound(id=group_id))


def _default_id(s: Session, project_id: str) -> str | None:
    return s.scalar(_DEFAULT_ID, {"project_id": project_id})


def ensure_default(s: Session, project_id: str) -> str:
    """The id of the project's `default` group, created with its rules if missing."""
    found = _default_id(s, project_id)
    if found is not None:
        return found
    group = m.SecurityGroup(id=str(uuid.uuid4()), project_id=project_id, name="default",
                            description="Default security group")
    s.add(group)
    s.flush()
    s.add(m.DefaultSecurityGroup(project_id=project_id, security_group_id=group.id))
    for ethertype in ETHERTYPES:
        s.add(_rule_row(project_id, group.id, {"direction": "egress",
                                               "ethertype": ethertype}))
        s.add(_rule_row(project_id, group.id, {"direction": "ingress", "ethertype": ethertype,
                                               "remote_group_id": group.id}))
    s.flush()
    return group.id


def _rules(s: Session, group_ids: list[str]) -> dict[str, list[m.SecurityGroupRule]]:
    found: dict[str, list[m.SecurityGroupRule]] = {g: [] for g in group_ids}
    for rule in s.scalars(select(m.SecurityGroupRule).where(
            m.SecurityGroupRule.security_group_id.in_(group_ids))):
        found[rule.security_group_id].append(rule)
    return found


def record(s: Session, row: m.SecurityGroup) -> Record:
    return records.security_group(row, _rules(s, [row.id])[row.id],
                                  _default_id(s, row.project_id) == row.id)


def list_records(s: Session, scope: Scope) -> list[Record]:
    if not scope.is_admin:
        ensure_default(s, scope.project_id)
    query = select(m.SecurityGroup)
    if not scope.is_admin:
        query = query.where(m.SecurityGroup.project_id == scope.project_id)
    rows = list(s.scalars(query))
    rules = _rules(s, [r.id for r in rows])
    defaults = set(s.scalars(select(m.DefaultSecurityGroup.security_group_id)))
    return [records.security_group(r, rules[r.id], r.id in defaults) for r in rows]


def create(s: Session, project_id: str, values: dict[str, Any]) -> Record:
    if values.get("name") == "default":
        raise errors.Conflict(msg="Default security group already exists.") \
            if _default_id(s, project_id) else errors.BadRequest(
                resource="security_group", msg="'default' is reserved")
    ensure_default(s, project_id)
    common.check_quota(s, project_id, "security_group")
    group = m.SecurityGroup(id=str(uuid.uuid4()), project_id=project_id,
                            name=values.get("name", ""),
                            description=values.get("description", ""),
                            stateful=values.get("stateful", True))
    s.add(group)
    s.flush()
    for ethertype in ETHERTYPES:
        s.add(_rule_row(project_id, group.id, {"direction": "egress",
                                               "ethertype": ethertype}))
    s.flush()
    return record(s, group)


def update(s: Session, row: m.SecurityGroup, values: dict[str, Any]) -> Record:
    if "name" in values and values["name"] != row.name and \
            _default_id(s, row.project_id) == row.id:
        raise errors.Conflict(msg="Insufficient rights for renaming the default security "
                                  "group.")
    common.update(row, {k: v for k, v in values.items()
                        if k in ("name", "description", "stateful")})
    return record(s, row)


def in_use(s: Session, group_id: str) -> bool:
    used = s.scalars(select(m.Port.security_groups).where(m.Port.security_groups != []))
    return any(group_id in (groups or []) for groups in used)


def delete(s: Session, scope: Scope, row: m.SecurityGroup) -> None:
    if _default_id(s, row.project_id) == row.id and not scope.is_admin:
        raise errors.SecurityGroupCannotRemoveDefault()
    if in_use(s, row.id):
        raise errors.SecurityGroupInUse(id=row.id, reason="in use")
    s.delete(row)


def _protocol(value: Any, ethertype: str) -> str | None:
    if value in (None, "", "any"):
        return None
    text = str(value).lower()
    if text.isdigit():
        if not 0 <= int(text) <= 255:
            raise errors.InvalidInput(error_message=f"protocol {value} out of range 0-255")
        return text
    if text not in PROTOCOLS:
        raise errors.InvalidInput(error_message=(
            f"Security group rule protocol {value} not supported. Only protocol values "
            f"{sorted(PROTOCOLS)} and integer representations [0 to 255] are supported."))
    if text == "icmp" and ethertype == "IPv6":
        return "ipv6-icmp"
    return text


def _ports(protocol: str | None, lo: Any, hi: Any) -> tuple[int | None, int | None]:
    if lo is None and hi is None:
        return None, None
    if protocol is None or (protocol not in PORT_PROTOCOLS and protocol not in ICMP_PROTOCOLS):
        raise errors.InvalidInput(error_message=(
            "Ports are only supported with protocols TCP, UDP, SCTP, DCCP, UDP-Lite, ICMP "
            "and ICMPv6"))
    if protocol in ICMP_PROTOCOLS:
        for name, value in (("type", lo), ("code", hi)):
            if value is not None and not 0 <= int(value) <= 255:
                raise errors.InvalidInput(error_message=(
                    f"Invalid value for ICMP {name} {value}: it must be 0 to 255"))
        return lo, hi
    lo, hi = (lo if lo is not None else hi), (hi if hi is not None else lo)
    if not (1 <= int(lo) <= 65535 and 1 <= int(hi) <= 65535):
        raise errors.InvalidInput(error_message=f"Invalid port range {lo}:{hi}")
    if int(lo) > int(hi):
        raise errors.InvalidInput(error_message=(
            "For TCP/UDP protocols, port_range_min must be <= port_range_max"))
    return int(lo), int(hi)


def _rule_row(project_id: str, group_id: str, values: dict[str, Any]) -> m.SecurityGroupRule:
    direction = values.get("direction")
    if direction not in DIRECTIONS:
        raise errors.InvalidInput(error_message=f"{direction} is not in {list(DIRECTIONS)}")
    ethertype = values.get("ethertype") or "IPv4"
    if ethertype not in ETHERTYPES:
        raise errors.InvalidInput(error_message=f"{ethertype} is not in {list(ETHERTYPES)}")
    protocol = _protocol(values.get("protocol"), ethertype)
    lo, hi = _ports(protocol, values.get("port_range_min"), values.get("port_range_max"))
    prefix = values.get("remote_ip_prefix")
    if prefix is not None:
        try:
            net = ipaddress.ip_network(prefix, strict=False)
        except ValueError:
            raise errors.InvalidInput(error_message=f"'{prefix}' is not a valid IP prefix") \
                from None
        if f"IPv{net.version}" != ethertype:
            raise errors.BadRequest(resource="security_group_rule", msg=(
                f"Conflicting value ethertype {ethertype} for CIDR {prefix}"))
        prefix = str(net)
    if prefix is not None and values.get("remote_group_id"):
        raise errors.BadRequest(resource="security_group_rule", msg=(
            "Only remote_ip_prefix or remote_group_id may be provided"))
    return m.SecurityGroupRule(
        id=str(uuid.uuid4()), project_id=project_id, security_group_id=group_id,
        direction=direction, ethertype=ethertype, protocol=protocol, port_range_min=lo,
        port_range_max=hi, remote_ip_prefix=prefix,
        remote_group_id=values.get("remote_group_id"),
        description=values.get("description", ""))


_SAME = ("direction", "ethertype", "protocol", "port_range_min", "port_range_max",
         "remote_ip_prefix", "remote_group_id")


def create_rule(s: Session, scope: Scope, project_id: str, values: dict[str, Any]) -> Record:
    group = get(s, scope, values.get("security_group_id", ""))
    if values.get("remote_group_id"):
        get(s, scope, values["remote_group_id"])
    common.check_quota(s, project_id, "security_group_rule")
    rule = _rule_row(project_id, group.id, values)
    for other in _rules(s, [group.id])[group.id]:
        if all(getattr(other, k) == getattr(rule, k) for k in _SAME):
            raise errors.SecurityGroupRuleExists(rule_id=other.id)
    s.add(rule)
    common.bump(group)
    s.flush()
    return records.security_group_rule(rule)


def get_rule(s: Session, scope: Scope, rule_id: str) -> m.SecurityGroupRule:
    return common.owned(s.get(m.SecurityGroupRule, rule_id), scope,
                        errors.SecurityGroupRuleNotFound(id=rule_id))


def list_rules(s: Session, scope: Scope) -> list[Record]:
    query = select(m.SecurityGroupRule)
    if not scope.is_admin:
        ensure_default(s, scope.project_id)
        query = query.where(m.SecurityGroupRule.project_id == scope.project_id)
    return [records.security_group_rule(r) for r in s.scalars(query)]
