"""Subnets: a CIDR on a network that no other subnet of it overlaps, its gateway, the
allocation pools IPAM takes addresses from, DNS servers, host routes and IPv6 modes."""

from __future__ import annotations

import ipaddress
import uuid
from typing import Any

from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session

from novalite.db.models import network as m
from novalite.network import common, errors, ipam, networks, nova_notifier, records
from novalite.network.records import Record
from novalite.network.scope import Scope

IPV6_MODES = ("slaac", "dhcpv6-stateful", "dhcpv6-stateless")
# the device owners a subnet may serve (neutron-lib's DEVICE_OWNER_PREFIXES and compute's)
SERVICE_TYPE_PREFIXES = ("network:", "neutron:", "compute:")
COLUMNS = {"name", "enable_dhcp", "dns_nameservers", "host_routes", "description",
           "service_types"}
# built once (see common)
_OF_NETWORK = (select(m.Subnet).where(m.Subnet.network_id == bindparam("network_id"))
               .order_by(m.Subnet.created_at, m.Subnet.id))


def get(s: Session, scope: Scope, subnet_id: str) -> m.Subnet:
    row = s.get(m.Subnet, subnet_id)
    if row is None:
        raise errors.SubnetNotFound(subnet_id=subnet_id)
    network = s.get(m.Network, row.network_id)
    visible = scope.owns(row.project_id) or (network is not None and (
        network.shared or network.external))
    if not visible:
        raise errors.SubnetNotFound(subnet_id=subnet_id)
    return row


def of_network(s: Session, network_id: str) -> list[m.Subnet]:
    return list(s.scalars(_OF_NETWORK, {"network_id": network_id}))


def list_records(s: Session, scope: Scope) -> list[Record]:
    query = select(m.Subnet)
    if not scope.is_admin:
        shared = select(m.Network.id).where(m.Network.shared | m.Network.external)
        query = query.where((m.Subnet.project_id == scope.project_id)
                            | m.Subnet.network_id.in_(shared))
    return [records.subnet(r) for r in s.scalars(query)]


def _network_cidr(cidr: str, ip_version: int) -> ipaddress.IPv4Network | ipaddress.IPv6Network:
    try:
        net = ipaddress.ip_network(cidr, strict=False)
    except ValueError:
        raise errors.InvalidInput(error_message=f"'{cidr}' is not a valid IP subnet") \
            from None
    if ipaddress.ip_interface(cidr).ip != net.network_address:
        raise errors.InvalidInput(error_message=f"'{cidr}' isn't a recommended CIDR, "
                                                f"'{net}' is recommended")
    if net.version != ip_version:
        raise errors.InvalidInput(error_message="Cidr and IP version are incompatible")
    if net.prefixlen == 0:
        raise errors.InvalidInput(error_message="0 is not allowed as CIDR prefix length")
    return net


def _check_overlap(s: Session, network_id: str, net: Any) -> None:
    for other in of_network(s, network_id):
        if ipaddress.ip_network(other.cidr).overlaps(net):
            raise errors.OverlappingCidr(new=str(net), net_id=network_id)


def _gateway(values: dict[str, Any], net: Any) -> str | None:
    if "gateway_ip" not in values:
        return str(next(iter(net.hosts()), net.network_address)) \
            if net.prefixlen < net.max_prefixlen else None
    if values["gateway_ip"] is None:
        return None
    try:
        gateway = ipaddress.ip_address(values["gateway_ip"])
    except ValueError:
        raise errors.InvalidInput(error_message=f"'{values['gateway_ip']}' is not a valid "
                                                "IP address") from None
    if gateway.version != net.version or (net.version == 4 and gateway in (
            net.network_address, net.broadcast_address) and net.prefixlen < 31):
        raise errors.BadRequest(resource="subnet", msg="Gateway is not valid on subnet")
    return str(gateway)


def _ipv6_modes(values: dict[str, Any], ip_version: int) -> None:
    for key in ("ipv6_ra_mode", "ipv6_address_mode"):
        value = values.get(key)
        if value is None:
            continue
        if ip_version != 4 and value in IPV6_MODES:
            continue
        raise errors.InvalidInput(error_message=(
            f"{key} set to '{value}' with ip_version set to '{ip_version}' is not valid"))
    ra, addr = values.get("ipv6_ra_mode"), values.get("ipv6_address_mode")
    if ra and addr and ra != addr:
        raise errors.InvalidInput(error_message=(
            f"ipv6_ra_mode set to '{ra}' with ipv6_address_mode set to '{addr}' is not "
            "valid. If both attributes are set, they must be the same value"))


def _check_service_types(values: dict[str, Any]) -> None:
    """neutron-lib's validate_subnet_service_types: each a device owner's (a prefix of
    SERVICE_TYPE_PREFIXES)."""
    for service_type in values.get("service_types") or ():
        if not isinstance(service_type, str):
            raise errors.InvalidInputSubnetServiceType(service_type=service_type)
        if not service_type.startswith(SERVICE_TYPE_PREFIXES):
            raise errors.InvalidSubnetServiceType(service_type=service_type)


def create(s: Session, network: m.Network, project_id: str, values: dict[str, Any]
           ) -> Record:
    common.check_quota(s, project_id, "subnet")
    _check_service_types(values)
    ip_version = values.get("ip_version", 4)
    networks.check_subnets_fit(s, network.id, network.mtu, (ip_version,))
    net = _network_cidr(values["cidr"], ip_version)
    _ipv6_modes(values, ip_version)
    if ipam.auto_address_modes(ip_version, values.get("ipv6_address_mode"),
                               values.get("ipv6_ra_mode")) and net.prefixlen != 64:
        raise errors.InvalidInput(error_message=(
            f"Invalid CIDR {net} for IPv6 address mode. OpenStack uses the EUI-64 address "
            "format, which requires the prefix to be /64"))
    _check_overlap(s, network.id, net)
    gateway = _gateway(values, net)
    if gateway is not None and ipaddress.ip_address(gateway) not in net:
        raise errors.BadRequest(resource="subnet", msg=(
            f"Gateway ip {gateway} is not in subnet {net}"))
    pools = values.get("allocation_pools") or ipam.default_pools(str(net), gateway)
    ipam.validate_pools(str(net), gateway, pools)
    row = m.Subnet(id=str(uuid.uuid4()), project_id=project_id, network_id=network.id,
                   ip_version=ip_version, cidr=str(net), gateway_ip=gateway,
                   allocation_pools=[{"start": p["start"], "end": p["end"]} for p in pools],
                   ipv6_ra_mode=values.get("ipv6_ra_mode"),
                   ipv6_address_mode=values.get("ipv6_address_mode"),
                   subnetpool_id=values.get("subnetpool_id"),
                   **{k: v for k, v in values.items() if k in COLUMNS})
    s.add(row)
    common.bump(network)
    s.flush()
    if ipam.is_auto_address(row):
        _address_network_ports(s, row)
    return records.subnet(row)


def _address_network_ports(s: Session, subnet: m.Subnet) -> None:
    """Neutron's add_auto_addrs_on_network_ports: a new auto-address subnet gives each
    port already on its network the address the port's MAC forms there (but a router's
    interface, and a port whose owner the subnet does not serve), as an update of the
    port would: a new revision, and its server's compute told (network-changed) so that
    the server's cached addresses follow. The agents read ports' addresses from here:
    the host's anti-spoofing rules let the new one through at their next sync."""
    for port in s.scalars(select(m.Port).where(m.Port.network_id == subnet.network_id)
                          .order_by(m.Port.id)):
        if ipam.gets_auto_address(port.device_owner) and ipam.serves(subnet,
                                                                    port.device_owner):
            ipam.take_auto(s, subnet, port.id, port.mac_address)
            common.bump(port)
            nova_notifier.record(s, port)


def update(s: Session, row: m.Subnet, values: dict[str, Any]) -> Record:
    _check_service_types(values)
    changes = {k: v for k, v in values.items() if k in COLUMNS}
    net = ipaddress.ip_network(row.cidr)
    gateway = _gateway(values, net) if "gateway_ip" in values else row.gateway_ip
    pools = values.get("allocation_pools", row.allocation_pools)
    if "allocation_pools" in values or "gateway_ip" in values:
        ipam.validate_pools(row.cidr, gateway, pools)
    changes.update(gateway_ip=gateway, allocation_pools=pools)
    common.update(row, changes)
    return records.subnet(row)


def delete(s: Session, row: m.Subnet) -> None:
    in_use = s.scalars(select(m.IPAllocation.port_id).join(
        m.Port, m.Port.id == m.IPAllocation.port_id).where(
        m.IPAllocation.subnet_id == row.id, m.Port.device_owner != "network:dhcp")).first()
    if in_use is not None:
        raise errors.SubnetInUse(subnet_id=row.id)
    s.delete(row)
