"""Rows as the API shows them: Neutron's resource dicts, with its attribute names
(`router:external`, `provider:*`, `binding:*`, `tenant_id` beside `project_id`)."""

from __future__ import annotations

import datetime
from typing import Any

from novalite.db.models import network as m
from novalite.network.common import AVAILABILITY_ZONE

Record = dict[str, Any]


def _time(value: datetime.datetime | None) -> str | None:
    return value.strftime("%Y-%m-%dT%H:%M:%SZ") if value else None


def standard(row: Any) -> Record:
    return {"description": row.description or "", "revision_number": row.revision_number,
            "tags": list(row.tags or []), "created_at": _time(row.created_at),
            "updated_at": _time(row.updated_at), "project_id": row.project_id,
            "tenant_id": row.project_id}


def network(row: Any, subnet_ids: list[str], segment: Any | None) -> Record:
    """`row`, `segment`: ORM objects or Core rows of networks and networksegments."""
    return {"id": row.id, "name": row.name, "status": row.status,
            "admin_state_up": row.admin_state_up, "shared": row.shared,
            "router:external": row.external, "is_default": row.is_default,
            "mtu": row.mtu, "port_security_enabled": row.port_security_enabled,
            "availability_zone_hints": list(row.availability_zone_hints or []),
            "availability_zones": [AVAILABILITY_ZONE], "ipv4_address_scope": None,
            "ipv6_address_scope": None, "dns_domain": row.dns_domain,
            "l2_adjacency": True, "qos_policy_id": None,
            "subnets": sorted(subnet_ids),
            "provider:network_type": segment.network_type if segment else None,
            "provider:physical_network": segment.physical_network if segment else None,
            "provider:segmentation_id": segment.segmentation_id if segment else None,
            **standard(row)}


def subnet(row: m.Subnet) -> Record:
    return {"id": row.id, "name": row.name, "network_id": row.network_id,
            "ip_version": row.ip_version, "cidr": row.cidr, "gateway_ip": row.gateway_ip,
            "enable_dhcp": row.enable_dhcp, "ipv6_ra_mode": row.ipv6_ra_mode,
            "ipv6_address_mode": row.ipv6_address_mode,
            "subnetpool_id": row.subnetpool_id,
            "allocation_pools": list(row.allocation_pools or []),
            "dns_nameservers": list(row.dns_nameservers or []),
            "host_routes": list(row.host_routes or []),
            "service_types": list(row.service_types or []), "segment_id": None,
            "dns_publish_fixed_ip": False, **standard(row)}


def subnet_pool(row: m.SubnetPool) -> Record:
    return {"id": row.id, "name": row.name, "ip_version": row.ip_version,
            "prefixes": list(row.prefixes or []),
            "default_prefixlen": row.default_prefixlen, "min_prefixlen": row.min_prefixlen,
            "max_prefixlen": row.max_prefixlen, "shared": row.shared,
            "is_default": row.is_default, "address_scope_id": row.address_scope_id,
            "default_quota": None, **standard(row)}


def port(row: m.Port, fixed_ips: list[dict[str, str]]) -> Record:
    return {"id": row.id, "name": row.name, "network_id": row.network_id,
            "mac_address": row.mac_address, "admin_state_up": row.admin_state_up,
            "status": row.status, "device_id": row.device_id,
            "device_owner": row.device_owner, "fixed_ips": fixed_ips,
            "allowed_address_pairs": list(row.allowed_address_pairs or []),
            "extra_dhcp_opts": [], "security_groups": list(row.security_groups or []),
            "port_security_enabled": row.port_security_enabled,
            "binding:host_id": row.binding_host_id,
            "binding:vnic_type": row.binding_vnic_type,
            "binding:vif_type": row.binding_vif_type,
            "binding:vif_details": dict(row.binding_vif_details or {}),
            "binding:profile": dict(row.binding_profile or {}),
            "dns_name": row.dns_name, "dns_assignment": [], "qos_policy_id": None,
            "qos_network_policy_id": None, "propagate_uplink_status": False,
            "resource_request": row.resource_request, **standard(row)}


def security_group_rule(row: m.SecurityGroupRule) -> Record:
    return {"id": row.id, "security_group_id": row.security_group_id,
            "remote_group_id": row.remote_group_id,
            "remote_ip_prefix": row.remote_ip_prefix, "direction": row.direction,
            "ethertype": row.ethertype, "protocol": row.protocol,
            "port_range_min": row.port_range_min, "port_range_max": row.port_range_max,
            "remote_address_group_id": None, "normalized_cidr": row.remote_ip_prefix,
            "belongs_to_default_sg": None, **standard(row)}


def security_group(row: m.SecurityGroup, rules: list[m.SecurityGroupRule],
                   is_default: bool) -> Record:
    return {"id": row.id, "name": row.name, "stateful": row.stateful,
            "shared": False, "is_default": is_default,
            "security_group_rules": [security_group_rule(r) for r in rules],
            **standard(row)}


def router(row: m.Router, gateway: Record | None) -> Record:
    return {"id": row.id, "name": row.name, "status": row.status,
            "admin_state_up": row.admin_state_up, "external_gateway_info": gateway,
            "routes": list(row.routes or []), "distributed": False, "ha": False,
            "availability_zone_hints": list(row.availability_zone_hints or []),
            "availability_zones": [AVAILABILITY_ZONE], "flavor_id": None, **standard(row)}


def floating_ip(row: m.FloatingIP, port_details: Record | None) -> Record:
    return {"id": row.id, "floating_ip_address": row.floating_ip_address,
            "floating_network_id": row.floating_network_id,
            "port_id": row.fixed_port_id, "fixed_ip_address": row.fixed_ip_address,
            "router_id": row.router_id, "status": row.status,
            "port_details": port_details, "port_forwardings": [],
            "dns_domain": "", "dns_name": "", "qos_policy_id": None, **standard(row)}
