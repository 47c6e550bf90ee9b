"""Routers: an external gateway on an external network, and interfaces on project
subnets (a port holding the subnet's gateway address). Floating IPs reach a port through
the router joining its subnet to the floating IP's network."""

from __future__ import annotations

import ipaddress
import uuid
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from novalite.db.models import network as m
from novalite.network import common, errors, networks, ports, records, subnets
from novalite.network.records import Record
from novalite.network.scope import ADMIN, Scope

INTERFACE = "network:router_interface"


def get(s: Session, scope: Scope, router_id: str) -> m.Router:
    return common.owned(s.get(m.Router, router_id), scope,
                        errors.RouterNotFound(router_id=router_id))


def _gateway_info(s: Session, row: m.Router) -> Record | None:
    if row.gw_port_id is None:
        return None
    port = s.get(m.Port, row.gw_port_id)
    if port is None:
        return None
    ips = ports.fixed_ips(s, [port.id]).get(port.id, [])
    return {"network_id": port.network_id, "enable_snat": row.enable_snat,
            "external_fixed_ips": ips}


def record(s: Session, row: m.Router) -> Record:
    return records.router(row, _gateway_info(s, row))


def list_records(s: Session, scope: Scope) -> list[Record]:
    query = select(m.Router)
    if not scope.is_admin:
        query = query.where(m.Router.project_id == scope.project_id)
    return [record(s, r) for r in s.scalars(query)]


def _set_gateway(s: Session, scope: Scope, row: m.Router, info: dict[str, Any] | None) -> None:
    current = s.get(m.Port, row.gw_port_id) if row.gw_port_id else None
    if info is None or not info.get("network_id"):
        if current is not None:
            if s.scalar(select(m.FloatingIP.id).where(m.FloatingIP.router_id == row.id)):
                raise errors.Conflict(msg=(
                    f"Gateway cannot be updated for router {row.id}, since a gateway to "
                    "external network is required by one or more floating IPs."))
            row.gw_port_id = None
            s.flush()
            ports.delete(s, current, direct=False)
        return
    if current is not None and current.network_id == info["network_id"]:
        row.enable_snat = info.get("enable_snat", row.enable_snat)
        return
    network = networks.get(s, scope, info["network_id"])
    if not network.external:
        raise errors.BadRequest(resource="router", msg=(
            f"Network {network.id} is not an external network"))
    if current is not None:
        row.gw_port_id = None
        s.flush()
        ports.delete(s, current, direct=False)
    port = ports.create(s, ADMIN, network, ports.SERVICE_PROJECT, {
        "device_owner": networks.ROUTER_GATEWAY, "device_id": row.id,
        "fixed_ips": info.get("external_fixed_ips") or None})
    row.gw_port_id = port["id"]
    row.enable_snat = info.get("enable_snat", True)
    _activate(s, port["id"])


def _activate(s: Session, port_id: str) -> None:
    port = s.get(m.Port, port_id)
    if port is not None:
        port.status = "ACTIVE"


def create(s: Session, scope: Scope, project_id: str, values: dict[str, Any]) -> Record:
    common.check_quota(s, project_id, "router")
    common.check_availability_zones(values.get("availability_zone_hints"))
    row = m.Router(id=str(uuid.uuid4()), project_id=project_id,
                   **{k: v for k, v in values.items()
                      if k in ("name", "admin_state_up", "description",
                               "availability_zone_hints")})
    s.add(row)
    s.flush()
    _set_gateway(s, scope, row, values.get("external_gateway_info"))
    return record(s, row)


def update(s: Session, scope: Scope, row: m.Router, values: dict[str, Any]) -> Record:
    if "external_gateway_info" in values:
        _set_gateway(s, scope, row, values["external_gateway_info"])
        common.bump(row)
    common.update(row, {k: v for k, v in values.items()
                        if k in ("name", "admin_state_up", "description", "routes")})
    return record(s, row)


def interface_ports(s: Session, router_id: str) -> list[m.Port]:
    return list(s.scalars(select(m.Port).where(m.Port.device_id == router_id,
                                               m.Port.device_owner == INTERFACE)))


def delete(s: Session, scope: Scope, row: m.Router) -> None:
    if interface_ports(s, row.id):
        raise errors.RouterInUse(router_id=row.id, reason="still has ports")
    _set_gateway(s, scope, row, None)
    s.delete(row)


def _info(row: m.Router, port: m.Port, subnet_ids: list[str]) -> Record:
    return {"id": row.id, "tenant_id": row.project_id, "project_id": row.project_id,
            "port_id": port.id, "network_id": port.network_id,
            "subnet_id": subnet_ids[0] if subnet_ids else None, "subnet_ids": subnet_ids}


def _subnets_of(s: Session, port_id: str) -> list[str]:
    return [ip["subnet_id"] for ip in ports.fixed_ips(s, [port_id]).get(port_id, [])]


def _check_no_interface(s: Session, row: m.Router, subnet_ids: list[str]) -> None:
    """Neutron's _check_for_dup_router_subnets: one interface per subnet, and no two
    whose addresses overlap (the router could not tell where to send)."""
    new = {sid: ipaddress.ip_network(sub.cidr) for sid in subnet_ids
           if (sub := s.get(m.Subnet, sid)) is not None}
    for port in interface_ports(s, row.id):
        for subnet_id in _subnets_of(s, port.id):
            if subnet_id in subnet_ids:
                raise errors.BadRequest(resource="router", msg=(
                    f"Router already has a port on subnet {subnet_id}"))
            existing = s.get(m.Subnet, subnet_id)
            for new_id, net in new.items():
                if existing is not None and net.overlaps(ipaddress.ip_network(existing.cidr)):
                    raise errors.BadRequest(resource="router", msg=(
                        f"Cidr {net} of subnet {new_id} overlaps with cidr {existing.cidr} "
                        f"of subnet {subnet_id}"))


def add_interface(s: Session, scope: Scope, row: m.Router, values: dict[str, Any]) -> Record:
    if bool(values.get("subnet_id")) == bool(values.get("port_id")):
        raise errors.BadRequest(resource="router", msg=(
            "Either subnet_id or port_id must be specified"))
    if values.get("port_id"):
        port = ports.get(s, scope, values["port_id"])
        if port.device_id:
            raise errors.PortInUse(port_id=port.id, net_id=port.network_id,
                                   device_id=port.device_id)
        subnet_ids = _subnets_of(s, port.id)
        if not subnet_ids:
            raise errors.BadRequest(resource="router", msg=(
                "Router port must have at least one fixed IP"))
        _check_no_interface(s, row, subnet_ids)
        port.device_id, port.device_owner, port.status = row.id, INTERFACE, "ACTIVE"
        common.bump(port)
        return _info(row, port, subnet_ids)
    subnet = subnets.get(s, scope, values["subnet_id"])
    if not subnet.gateway_ip:
        raise errors.BadRequest(resource="router", msg=(
            "Subnet for router interface must have a gateway IP"))
    _check_no_interface(s, row, [subnet.id])
    network = s.get(m.Network, subnet.network_id)
    assert network is not None
    created = ports.create(s, ADMIN, network, row.project_id, {
        "device_owner": INTERFACE, "device_id": row.id,
        "fixed_ips": [{"subnet_id": subnet.id, "ip_address": subnet.gateway_ip}]})
    _activate(s, created["id"])
    interface = s.get(m.Port, created["id"])
    assert interface is not None
    common.bump(row)
    return _info(row, interface, [subnet.id])


def remove_interface(s: Session, scope: Scope, row: m.Router, values: dict[str, Any]
                     ) -> Record:
    candidates = interface_ports(s, row.id)
    port: m.Port | None
    if values.get("port_id"):
        port = next((p for p in candidates if p.id == values["port_id"]), None)
        if port is None:
            raise errors.RouterInterfaceNotFound(router_id=row.id, port_id=values["port_id"])
        if values.get("subnet_id") and values["subnet_id"] not in _subnets_of(s, port.id):
            raise errors.Conflict(msg=f"Subnet {values['subnet_id']} is not on port "
                                      f"{port.id}")
    elif values.get("subnet_id"):
        port = next((p for p in candidates if values["subnet_id"] in _subnets_of(s, p.id)),
                    None)
        if port is None:
            raise errors.RouterInterfaceNotFoundForSubnet(router_id=row.id,
                                                          subnet_id=values["subnet_id"])
    else:
        raise errors.BadRequest(resource="router", msg=(
            "Either subnet_id or port_id must be specified"))
    assert port is not None
    subnet_ids = _subnets_of(s, port.id)
    _check_floating_ips(s, row, subnet_ids)
    info = _info(row, port, subnet_ids)
    ports.delete(s, port, direct=False)
    common.bump(row)
    return info


def _check_floating_ips(s: Session, row: m.Router, subnet_ids: list[str]) -> None:
    """A floating IP whose fixed address is on a subnet this interface joins needs it."""
    for fip in s.scalars(select(m.FloatingIP).where(m.FloatingIP.router_id == row.id)):
        for ip in ports.fixed_ips(s, [fip.fixed_port_id or ""]).get(fip.fixed_port_id or "",
                                                                    []):
            if ip["ip_address"] == fip.fixed_ip_address and ip["subnet_id"] in subnet_ids:
                raise errors.RouterInterfaceInUseByFloatingIP(subnet_id=ip["subnet_id"],
                                                              router_id=row.id)


def route_to(s: Session, external_network_id: str, subnet_id: str) -> str | None:
    """The router with an interface on `subnet_id` and its gateway on the network."""
    for port in s.scalars(select(m.Port).join(
            m.IPAllocation, m.IPAllocation.port_id == m.Port.id).where(
            m.IPAllocation.subnet_id == subnet_id, m.Port.device_owner == INTERFACE)):
        router = s.get(m.Router, port.device_id)
        gateway = s.get(m.Port, router.gw_port_id) if router and router.gw_port_id else None
        if gateway is not None and gateway.network_id == external_network_id:
            return router.id if router else None
    return None
