"""Floating IPs: an address of an external network (held by a port the service owns),
associated with a project port's fixed IP when a router joins the two networks."""

from __future__ import annotations

import ipaddress
import uuid
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from novalite.db.models import network as m
from novalite.network import (
    common,
    errors,
    networks,
    nova_notifier,
    ports,
    records,
    routers,
)
from novalite.network.records import Record
from novalite.network.scope import ADMIN, Scope

OWNER = "network:floatingip"


def get(s: Session, scope: Scope, fip_id: str) -> m.FloatingIP:
    return common.owned(s.get(m.FloatingIP, fip_id), scope,
                        errors.FloatingIPNotFound(floatingip_id=fip_id))


def _details(s: Session, row: m.FloatingIP) -> Record | None:
    port = s.get(m.Port, row.fixed_port_id) if row.fixed_port_id else None
    if port is None:
        return None
    return {"name": port.name, "network_id": port.network_id,
            "mac_address": port.mac_address, "admin_state_up": port.admin_state_up,
            "status": port.status, "device_id": port.device_id,
            "device_owner": port.device_owner}


def record(s: Session, row: m.FloatingIP) -> Record:
    return records.floating_ip(row, _details(s, row))


def list_records(s: Session, scope: Scope) -> list[Record]:
    query = select(m.FloatingIP)
    if not scope.is_admin:
        query = query.where(m.FloatingIP.project_id == scope.project_id)
    return [record(s, r) for r in s.scalars(query)]


def _fixed_ip(s: Session, port: m.Port, requested: str | None) -> dict[str, str]:
    ips = [ip for ip in ports.fixed_ips(s, [port.id]).get(port.id, [])
           if ipaddress.ip_address(ip["ip_address"]).version == 4]
    if requested is not None:
        found = [ip for ip in ips if ip["ip_address"] == requested]
        if not found:
            raise errors.BadRequest(resource="floatingip", msg=(
                f"Port {port.id} does not have fixed ip {requested}"))
        return found[0]
    if not ips:
        raise errors.BadRequest(resource="floatingip", msg=(
            f"Port {port.id} does not have any IPv4 address"))
    return ips[0]


def _associate(s: Session, scope: Scope, row: m.FloatingIP, port_id: str | None,
               fixed_address: str | None) -> None:
    if row.fixed_port_id:
        nova_notifier.record(s, s.get(m.Port, row.fixed_port_id))
    if port_id is None:
        row.fixed_port_id = row.fixed_ip_address = row.router_id = None
        row.status = "DOWN"
        return
    port = ports.get(s, scope, port_id)
    if port.device_owner.startswith("network:"):
        raise errors.BadRequest(resource="floatingip", msg=(
            f"Port {port.id} has owner {port.device_owner} and therefore cannot be "
            "assigned to a floating IP"))
    fixed = _fixed_ip(s, port, fixed_address)
    router_id = routers.route_to(s, row.floating_network_id, fixed["subnet_id"])
    if router_id is None:
        raise errors.ExternalGatewayForFloatingIPNotFound(
            external_network_id=row.floating_network_id, subnet_id=fixed["subnet_id"],
            port_id=port.id)
    other = s.scalars(select(m.FloatingIP).where(
        m.FloatingIP.fixed_port_id == port.id,
        m.FloatingIP.fixed_ip_address == fixed["ip_address"],
        m.FloatingIP.id != row.id)).first()
    if other is not None:
        raise errors.FloatingIPPortAlreadyAssociated(
            floating_ip_address=row.floating_ip_address, fip_id=row.id, port_id=port.id,
            fixed_ip=fixed["ip_address"], net_id=row.floating_network_id)
    nova_notifier.record(s, port)
    row.fixed_port_id, row.fixed_ip_address = port.id, fixed["ip_address"]
    row.router_id, row.status = router_id, "ACTIVE"


def create(s: Session, scope: Scope, project_id: str, values: dict[str, Any]) -> Record:
    network = networks.get(s, scope, values.get("floating_network_id", ""))
    if not network.external:
        raise errors.BadRequest(resource="floatingip", msg=(
            f"Network {network.id} is not a valid external network"))
    common.check_quota(s, project_id, "floatingip")
    fip_id = str(uuid.uuid4())
    fixed = None
    if values.get("floating_ip_address"):
        fixed = [{"ip_address": values["floating_ip_address"]}]
    elif values.get("subnet_id"):
        fixed = [{"subnet_id": values["subnet_id"]}]
    port = ports.create(s, ADMIN, network, ports.SERVICE_PROJECT,
                        {"device_owner": OWNER, "device_id": fip_id, "fixed_ips": fixed})
    v4 = [ip for ip in port["fixed_ips"]
          if ipaddress.ip_address(ip["ip_address"]).version == 4]
    if not v4:
        raise errors.IpAddressGenerationFailure(net_id=network.id)
    row = m.FloatingIP(id=fip_id, project_id=project_id,
                       floating_ip_address=v4[0]["ip_address"],
                       floating_network_id=network.id, floating_port_id=port["id"],
                       description=values.get("description", ""))
    s.add(row)
    _associate(s, scope, row, values.get("port_id"), values.get("fixed_ip_address"))
    s.flush()
    return record(s, row)


def update(s: Session, scope: Scope, row: m.FloatingIP, values: dict[str, Any]) -> Record:
    if "port_id" in values:
        _associate(s, scope, row, values["port_id"], values.get("fixed_ip_address"))
        common.bump(row)
    common.update(row, {k: v for k, v in values.items() if k == "description"})
    s.flush()
    return record(s, row)


def delete(s: Session, row: m.FloatingIP) -> None:
    if row.fixed_port_id:
        nova_notifier.record(s, s.get(m.Port, row.fixed_port_id))
    port = s.get(m.Port, row.floating_port_id)
    s.delete(row)
    s.flush()
    if port is not None:
        s.delete(port)
