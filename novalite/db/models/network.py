"""The network service's tables, by Neutron's names: networks with their segments and the
segmentation-id allocations (ml2_*_allocations), subnets, IP allocations, ports with their
binding, security groups and rules, routers, floating IPs, subnet pools and quotas.

Uniqueness that concurrency must not break is held by the database, not by a check before
the write: an address once per subnet (`ipallocations` primary key), a MAC once per
network, a VNI or VLAN id once per physical network. IPAM and the allocators insert and
retry on a conflict, as Neutron does.

Every resource carries Neutron's standard attributes (description, revision_number, tags,
created_at, updated_at) as columns of its own row.
"""

from __future__ import annotations

import datetime

from sqlalchemy import (
    JSON,
    Boolean,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    PrimaryKeyConstraint,
    String,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from novalite.db.models import Base
from novalite.timeutils import utcnow


class StandardAttributes:
    """Neutron's standard attributes of every resource."""

    description: Mapped[str] = mapped_column(String(255), default="")
    revision_number: Mapped[int] = mapped_column(Integer, default=0, nullable=False)
    tags: Mapped[list] = mapped_column(JSON, default=list)
    created_at: Mapped[datetime.datetime | None] = mapped_column(DateTime, default=utcnow)
    updated_at: Mapped[datetime.datetime | None] = mapped_column(DateTime, default=utcnow)


class Network(Base, StandardAttributes):
    __tablename__ = "networks"
    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    project_id: Mapped[str] = mapped_column(String(255), index=True)
    name: Mapped[str] = mapped_column(String(255), default="")
    status: Mapped[str] = mapped_column(String(16), default="ACTIVE")
    admin_state_up: Mapped[bool] = mapped_column(Boolean, default=True)
    shared: Mapped[bool] = mapped_column(Boolean, default=False)
    external: Mapped[bool] = mapped_column(Boolean, default=False)
    is_default: Mapped[bool] = mapped_column(Boolean, default=False)
    mtu: Mapped[int] = mapped_column(Integer, default=1450)
    port_security_enabled: Mapped[bool] = mapped_column(Boolean, default=True)
    availability_zone_hints: Mapped[list] = mapped_column(JSON, default=list)
    dns_domain: Mapped[str] = mapped_column(String(255), default="")


class NetworkSegment(Base):
    """How a network is carried: flat, vlan or vxlan, with its id on the wire."""

    __tablename__ = "networksegments"
    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    network_id: Mapped[str] = mapped_column(
        ForeignKey("networks.id", ondelete="CASCADE"), index=True)
    network_type: Mapped[str] = mapped_column(String(32))
    physical_network: Mapped[str | None] = mapped_column(String(64))
    segmentation_id: Mapped[int | None] = mapped_column(Integer)


class VxlanAllocation(Base):
    """A VNI taken by a network; the primary key makes two networks never share one."""

    __tablename__ = "ml2_vxlan_allocations"
    vxlan_vni: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    network_id: Mapped[str] = mapped_column(
        ForeignKey("networks.id", ondelete="CASCADE"), index=True)


class VlanAllocation(Base):
    __tablename__ = "ml2_vlan_allocations"
    __table_args__ = (PrimaryKeyConstraint("physical_network", "vlan_id"),)
    physical_network: Mapped[str] = mapped_column(String(64))
    vlan_id: Mapped[int] = mapped_column(Integer, autoincrement=False)
    network_id: Mapped[str] = mapped_column(
        ForeignKey("networks.id", ondelete="CASCADE"), index=True)


class FlatAllocation(Base):
    __tablename__ = "ml2_flat_allocations"
    physical_network: Mapped[str] = mapped_column(String(64), primary_key=True)
    network_id: Mapped[str] = mapped_column(
        ForeignKey("networks.id", ondelete="CASCADE"), index=True)


class SubnetPool(Base, StandardAttributes):
    __tablename__ = "subnetpools"
    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    project_id: Mapped[str] = mapped_column(String(255), index=True)
    name: Mapped[str] = mapped_column(String(255), default="")
    ip_version: Mapped[int] = mapped_column(Integer, default=4)
    prefixes: Mapped[list] = mapped_column(JSON, default=list)
    default_prefixlen: Mapped[int] = mapped_column(Integer, default=26)
    min_prefixlen: Mapped[int] = mapped_column(Integer, default=8)
    max_prefixlen: Mapped[int] = mapped_column(Integer, default=32)
    shared: Mapped[bool] = mapped_column(Boolean, default=False)
    is_default: Mapped[bool] = mapped_column(Boolean, default=False)
    address_scope_id: Mapped[str | None] = mapped_column(String(36))


class Subnet(Base, StandardAttributes):
    __tablename__ = "subnets"
    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    project_id: Mapped[str] = mapped_column(String(255), index=True)
    network_id: Mapped[str] = mapped_column(ForeignKey("networks.id"), index=True)
    name: Mapped[str] = mapped_column(String(255), default="")
    ip_version: Mapped[int] = mapped_column(Integer)
    cidr: Mapped[str] = mapped_column(String(64))
    gateway_ip: Mapped[str | None] = mapped_column(String(64))
    enable_dhcp: Mapped[bool] = mapped_column(Boolean, default=True)
    ipv6_ra_mode: Mapped[str | None] = mapped_column(String(16))
    ipv6_address_mode: Mapped[str | None] = mapped_column(String(16))
    subnetpool_id: Mapped[str | None] = mapped_column(String(36))
    allocation_pools: Mapped[list] = mapped_column(JSON, default=list)
    dns_nameservers: Mapped[list] = mapped_column(JSON, default=list)
    host_routes: Mapped[list] = mapped_column(JSON, default=list)
    service_types: Mapped[list] = mapped_column(JSON, default=list)


class Port(Base, StandardAttributes):
    __tablename__ = "ports"
    __table_args__ = (UniqueConstraint("network_id", "mac_address"),
                      Index("ix_ports_device_id", "device_id"))
    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    project_id: Mapped[str] = mapped_column(String(255), index=True)
    network_id: Mapped[str] = mapped_column(ForeignKey("networks.id"), index=True)
    name: Mapped[str] = mapped_column(String(255), default="")
    mac_address: Mapped[str] = mapped_column(String(32))
    admin_state_up: Mapped[bool] = mapped_column(Boolean, default=True)
    status: Mapped[str] = mapped_column(String(16), default="DOWN")
    device_id: Mapped[str] = mapped_column(String(255), default="")
    device_owner: Mapped[str] = mapped_column(String(255), default="")
    port_security_enabled: Mapped[bool] = mapped_column(Boolean, default=True)
    allowed_address_pairs: Mapped[list] = mapped_column(JSON, default=list)
    security_groups: Mapped[list] = mapped_column(JSON, default=list)
    # ml2_port_bindings, one binding per port
    binding_host_id: Mapped[str] = mapped_column(String(255), default="")
    binding_vnic_type: Mapped[str] = mapped_column(String(64), default="normal")
    binding_vif_type: Mapped[str] = mapped_column(String(64), default="unbound")
    binding_vif_details: Mapped[dict] = mapped_column(JSON, default=dict)
    binding_profile: Mapped[dict] = mapped_column(JSON, default=dict)
    dns_name: Mapped[str] = mapped_column(String(255), default="")
    resource_request: Mapped[dict | None] = mapped_column(JSON)


class IPAllocation(Base):
    """An address taken from a subnet. The primary key (address, subnet) is what makes
    two concurrent requests never get the same address."""

    __tablename__ = "ipallocations"
    __table_args__ = (PrimaryKeyConstraint("ip_address", "subnet_id"),)
    ip_address: Mapped[str] = mapped_column(String(64))
    subnet_id: Mapped[str] = mapped_column(ForeignKey("subnets.id", ondelete="CASCADE"),
                                           index=True)
    network_id: Mapped[str] = mapped_column(ForeignKey("networks.id", ondelete="CASCADE"))
    port_id: Mapped[str] = mapped_column(ForeignKey("ports.id", ondelete="CASCADE"),
                                         index=True)


class SecurityGroup(Base, StandardAttributes):
    __tablename__ = "securitygroups"
    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    project_id: Mapped[str] = mapped_column(String(255), index=True)
    name: Mapped[str] = mapped_column(String(255), default="")
    stateful: Mapped[bool] = mapped_column(Boolean, default=True)


class DefaultSecurityGroup(Base):
    """Which group is a project's `default`; the primary key makes it one per project
    even when its first two requests race to create it."""

    __tablename__ = "default_security_group"
    project_id: Mapped[str] = mapped_column(String(255), primary_key=True)
    security_group_id: Mapped[str] = mapped_column(
        ForeignKey("securitygroups.id", ondelete="CASCADE"))


class SecurityGroupRule(Base, StandardAttributes):
    __tablename__ = "securitygrouprules"
    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    project_id: Mapped[str] = mapped_column(String(255), index=True)
    security_group_id: Mapped[str] = mapped_column(
        ForeignKey("securitygroups.id", ondelete="CASCADE"), index=True)
    remote_group_id: Mapped[str | None] = mapped_column(
        ForeignKey("securitygroups.id", ondelete="CASCADE"))
    remote_ip_prefix: Mapped[str | None] = mapped_column(String(64))
    direction: Mapped[str] = mapped_column(String(16))
    ethertype: Mapped[str] = mapped_column(String(16))
    protocol: Mapped[str | None] = mapped_column(String(40))
    port_range_min: Mapped[int | None] = mapped_column(Integer)
    port_range_max: Mapped[int | None] = mapped_column(Integer)


class Router(Base, StandardAttributes):
    __tablename__ = "routers"
    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    project_id: Mapped[str] = mapped_column(String(255), index=True)
    name: Mapped[str] = mapped_column(String(255), default="")
    status: Mapped[str] = mapped_column(String(16), default="ACTIVE")
    admin_state_up: Mapped[bool] = mapped_column(Boolean, default=True)
    gw_port_id: Mapped[str | None] = mapped_column(ForeignKey("ports.id"))
    enable_snat: Mapped[bool] = mapped_column(Boolean, default=True)
    routes: Mapped[list] = mapped_column(JSON, default=list)
    availability_zone_hints: Mapped[list] = mapped_column(JSON, default=list)


class FloatingIP(Base, StandardAttributes):
    __tablename__ = "floatingips"
    __table_args__ = (UniqueConstraint("floating_network_id", "fixed_port_id",
                                       "fixed_ip_address",
                                       name="uniq_floatingips0network_port_address"),)
    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    project_id: Mapped[str] = mapped_column(String(255), index=True)
    floating_ip_address: Mapped[str] = mapped_column(String(64))
    floating_network_id: Mapped[str] = mapped_column(ForeignKey("networks.id"))
    floating_port_id: Mapped[str] = mapped_column(
        ForeignKey("ports.id", ondelete="CASCADE"))
    fixed_port_id: Mapped[str | None] = mapped_column(ForeignKey("ports.id"), index=True)
    fixed_ip_address: Mapped[str | None] = mapped_column(String(64))
    router_id: Mapped[str | None] = mapped_column(ForeignKey("routers.id"))
    status: Mapped[str] = mapped_column(String(16), default="DOWN")


class NetworkQuota(Base):
    """Neutron's `quotas` table (named apart from compute's): a project's limit per resource."""

    __tablename__ = "network_quotas"
    __table_args__ = (UniqueConstraint("project_id", "resource"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    project_id: Mapped[str] = mapped_column(String(255))
    resource: Mapped[str] = mapped_column(String(255))
    limit: Mapped[int] = mapped_column(Integer)
