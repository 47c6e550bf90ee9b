"""Network service

Compute's instance_info_caches (an instance's network info), and the network service's
tables (Neutron's names): networks, their segments and the segmentation-id allocations,
subnets, subnet pools, ports, IP allocations, security groups and rules, routers,
floating IPs and per-project network quotas.

Revision ID: 0007
Revises: 0006
"""

from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

TABLE_OPTIONS: dict[str, Any] = {"mysql_engine": "InnoDB", "mysql_charset": "utf8mb4"}
TABLES = [
    "instance_info_caches",
    "network_quotas",
    "networks",
    "securitygroups",
    "subnetpools",
    "default_security_group",
    "ml2_flat_allocations",
    "ml2_vlan_allocations",
    "ml2_vxlan_allocations",
    "networksegments",
    "ports",
    "securitygrouprules",
    "subnets",
    "ipallocations",
    "routers",
    "floatingips",
]


def upgrade() -> None:
    op.create_table(
        "instance_info_caches",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("instance_uuid", sa.String(length=36), nullable=False),
        sa.Column("network_info", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_instance_info_caches")),
        sa.UniqueConstraint("instance_uuid", name=op.f("uniq_instance_info_caches0instance_uuid")),
        **TABLE_OPTIONS,
    )
    op.create_table(
        "network_quotas",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("project_id", sa.String(length=255), nullable=False),
        sa.Column("resource", sa.String(length=255), nullable=False),
        sa.Column("limit", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_network_quotas")),
        sa.UniqueConstraint(
            "project_id", "resource", name=op.f("uniq_network_quotas0project_id_resource")
        ),
        **TABLE_OPTIONS,
    )
    op.create_table(
        "networks",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("project_id", sa.String(length=255), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("admin_state_up", sa.Boolean(), nullable=False),
        sa.Column("shared", sa.Boolean(), nullable=False),
        sa.Column("external", sa.Boolean(), nullable=False),
        sa.Column("is_default", sa.Boolean(), nullable=False),
        sa.Column("mtu", sa.Integer(), nullable=False),
        sa.Column("port_security_enabled", sa.Boolean(), nullable=False),
        sa.Column("availability_zone_hints", sa.JSON(), nullable=False),
        sa.Column("dns_domain", sa.String(length=255), nullable=False),
        sa.Column("description", sa.String(length=255), nullable=False),
        sa.Column("revision_number", sa.Integer(), nullable=False),
        sa.Column("tags", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_networks")),
        **TABLE_OPTIONS,
    )
    op.create_index(op.f("ix_networks_project_id"), "networks", ["project_id"], unique=False)
    op.create_table(
        "securitygroups",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("project_id", sa.String(length=255), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("stateful", sa.Boolean(), nullable=False),
        sa.Column("description", sa.String(length=255), nullable=False),
        sa.Column("revision_number", sa.Integer(), nullable=False),
        sa.Column("tags", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_securitygroups")),
        **TABLE_OPTIONS,
    )
    op.create_index(
        op.f("ix_securitygroups_project_id"), "securitygroups", ["project_id"], unique=False
    )
    op.create_table(
        "subnetpools",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("project_id", sa.String(length=255), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("ip_version", sa.Integer(), nullable=False),
        sa.Column("prefixes", sa.JSON(), nullable=False),
        sa.Column("default_prefixlen", sa.Integer(), nullable=False),
        sa.Column("min_prefixlen", sa.Integer(), nullable=False),
        sa.Column("max_prefixlen", sa.Integer(), nullable=False),
        sa.Column("shared", sa.Boolean(), nullable=False),
        sa.Column("is_default", sa.Boolean(), nullable=False),
        sa.Column("address_scope_id", sa.String(length=36), nullable=True),
        sa.Column("description", sa.String(length=255), nullable=False),
        sa.Column("revision_number", sa.Integer(), nullable=False),
        sa.Column("tags", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_subnetpools")),
        **TABLE_OPTIONS,
    )
    op.create_index(op.f("ix_subnetpools_project_id"), "subnetpools", ["project_id"], unique=False)
    op.create_table(
        "default_security_group",
        sa.Column("project_id", sa.String(length=255), nullable=False),
        sa.Column("security_group_id", sa.String(length=36), nullable=False),
        sa.ForeignKeyConstraint(
            ["security_group_id"],
            ["securitygroups.id"],
            name=op.f("fk_default_security_group_security_group_id_securitygroups"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("project_id", name=op.f("pk_default_security_group")),
        **TABLE_OPTIONS,
    )
    op.create_table(
        "ml2_flat_allocations",
        sa.Column("physical_network", sa.String(length=64), nullable=False),
        sa.Column("network_id", sa.String(length=36), nullable=False),
        sa.ForeignKeyConstraint(
            ["network_id"],
            ["networks.id"],
            name=op.f("fk_ml2_flat_allocations_network_id_networks"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("physical_network", name=op.f("pk_ml2_flat_allocations")),
        **TABLE_OPTIONS,
    )
    op.create_index(
        op.f("ix_ml2_flat_allocations_network_id"),
        "ml2_flat_allocations",
        ["network_id"],
        unique=False,
    )
    op.create_table(
        "ml2_vlan_allocations",
        sa.Column("physical_network", sa.String(length=64), nullable=False),
        sa.Column("vlan_id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("network_id", sa.String(length=36), nullable=False),
        sa.ForeignKeyConstraint(
            ["network_id"],
            ["networks.id"],
            name=op.f("fk_ml2_vlan_allocations_network_id_networks"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint(
            "physical_network", "vlan_id", name=op.f("pk_ml2_vlan_allocations")
        ),
        **TABLE_OPTIONS,
    )
    op.create_index(
        op.f("ix_ml2_vlan_allocations_network_id"),
        "ml2_vlan_allocations",
        ["network_id"],
        unique=False,
    )
    op.create_table(
        "ml2_vxlan_allocations",
        sa.Column("vxlan_vni", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("network_id", sa.String(length=36), nullable=False),
        sa.ForeignKeyConstraint(
            ["network_id"],
            ["networks.id"],
            name=op.f("fk_ml2_vxlan_allocations_network_id_networks"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("vxlan_vni", name=op.f("pk_ml2_vxlan_allocations")),
        **TABLE_OPTIONS,
    )
    op.create_index(
        op.f("ix_ml2_vxlan_allocations_network_id"),
        "ml2_vxlan_allocations",
        ["network_id"],
        unique=False,
    )
    op.create_table(
        "networksegments",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("network_id", sa.String(length=36), nullable=False),
        sa.Column("network_type", sa.String(length=32), nullable=False),
        sa.Column("physical_network", sa.String(length=64), nullable=True),
        sa.Column("segmentation_id", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(
            ["network_id"],
            ["networks.id"],
            name=op.f("fk_networksegments_network_id_networks"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_networksegments")),
        **TABLE_OPTIONS,
    )
    op.create_index(
        op.f("ix_networksegments_network_id"), "networksegments", ["network_id"], unique=False
    )
    op.create_table(
        "ports",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("project_id", sa.String(length=255), nullable=False),
        sa.Column("network_id", sa.String(length=36), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("mac_address", sa.String(length=32), nullable=False),
        sa.Column("admin_state_up", sa.Boolean(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("device_id", sa.String(length=255), nullable=False),
        sa.Column("device_owner", sa.String(length=255), nullable=False),
        sa.Column("port_security_enabled", sa.Boolean(), nullable=False),
        sa.Column("allowed_address_pairs", sa.JSON(), nullable=False),
        sa.Column("security_groups", sa.JSON(), nullable=False),
        sa.Column("binding_host_id", sa.String(length=255), nullable=False),
        sa.Column("binding_vnic_type", sa.String(length=64), nullable=False),
        sa.Column("binding_vif_type", sa.String(length=64), nullable=False),
        sa.Column("binding_vif_details", sa.JSON(), nullable=False),
        sa.Column("binding_profile", sa.JSON(), nullable=False),
        sa.Column("dns_name", sa.String(length=255), nullable=False),
        sa.Column("resource_request", sa.JSON(), nullable=True),
        sa.Column("description", sa.String(length=255), nullable=False),
        sa.Column("revision_number", sa.Integer(), nullable=False),
        sa.Column("tags", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["network_id"], ["networks.id"], name=op.f("fk_ports_network_id_networks")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ports")),
        sa.UniqueConstraint(
            "network_id", "mac_address", name=op.f("uniq_ports0network_id_mac_address")
        ),
        **TABLE_OPTIONS,
    )
    op.create_index("ix_ports_device_id", "ports", ["device_id"], unique=False)
    op.create_index(op.f("ix_ports_network_id"), "ports", ["network_id"], unique=False)
    op.create_index(op.f("ix_ports_project_id"), "ports", ["project_id"], unique=False)
    op.create_table(
        "securitygrouprules",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("project_id", sa.String(length=255), nullable=False),
        sa.Column("security_group_id", sa.String(length=36), nullable=False),
        sa.Column("remote_group_id", sa.String(length=36), nullable=True),
        sa.Column("remote_ip_prefix", sa.String(length=64), nullable=True),
        sa.Column("direction", sa.String(length=16), nullable=False),
        sa.Column("ethertype", sa.String(length=16), nullable=False),
        sa.Column("protocol", sa.String(length=40), nullable=True),
        sa.Column("port_range_min", sa.Integer(), nullable=True),
        sa.Column("port_range_max", sa.Integer(), nullable=True),
        sa.Column("description", sa.String(length=255), nullable=False),
        sa.Column("revision_number", sa.Integer(), nullable=False),
        sa.Column("tags", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["remote_group_id"],
            ["securitygroups.id"],
            name=op.f("fk_securitygrouprules_remote_group_id_securitygroups"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["security_group_id"],
            ["securitygroups.id"],
            name=op.f("fk_securitygrouprules_security_group_id_securitygroups"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_securitygrouprules")),
        **TABLE_OPTIONS,
    )
    op.create_index(
        op.f("ix_securitygrouprules_project_id"), "securitygrouprules", ["project_id"], unique=False
    )
    op.create_index(
        op.f("ix_securitygrouprules_security_group_id"),
        "securitygrouprules",
        ["security_group_id"],
        unique=False,
    )
    op.create_table(
        "subnets",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("project_id", sa.String(length=255), nullable=False),
        sa.Column("network_id", sa.String(length=36), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("ip_version", sa.Integer(), nullable=False),
        sa.Column("cidr", sa.String(length=64), nullable=False),
        sa.Column("gateway_ip", sa.String(length=64), nullable=True),
        sa.Column("enable_dhcp", sa.Boolean(), nullable=False),
        sa.Column("ipv6_ra_mode", sa.String(length=16), nullable=True),
        sa.Column("ipv6_address_mode", sa.String(length=16), nullable=True),
        sa.Column("subnetpool_id", sa.String(length=36), nullable=True),
        sa.Column("allocation_pools", sa.JSON(), nullable=False),
        sa.Column("dns_nameservers", sa.JSON(), nullable=False),
        sa.Column("host_routes", sa.JSON(), nullable=False),
        sa.Column("service_types", sa.JSON(), nullable=False),
        sa.Column("description", sa.String(length=255), nullable=False),
        sa.Column("revision_number", sa.Integer(), nullable=False),
        sa.Column("tags", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["network_id"], ["networks.id"], name=op.f("fk_subnets_network_id_networks")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_subnets")),
        **TABLE_OPTIONS,
    )
    op.create_index(op.f("ix_subnets_network_id"), "subnets", ["network_id"], unique=False)
    op.create_index(op.f("ix_subnets_project_id"), "subnets", ["project_id"], unique=False)
    op.create_table(
        "ipallocations",
        sa.Column("ip_address", sa.String(length=64), nullable=False),
        sa.Column("subnet_id", sa.String(length=36), nullable=False),
        sa.Column("network_id", sa.String(length=36), nullable=False),
        sa.Column("port_id", sa.String(length=36), nullable=False),
        sa.ForeignKeyConstraint(
            ["network_id"],
            ["networks.id"],
            name=op.f("fk_ipallocations_network_id_networks"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["port_id"],
            ["ports.id"],
            name=op.f("fk_ipallocations_port_id_ports"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["subnet_id"],
            ["subnets.id"],
            name=op.f("fk_ipallocations_subnet_id_subnets"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("ip_address", "subnet_id", name=op.f("pk_ipallocations")),
        **TABLE_OPTIONS,
    )
    op.create_index(op.f("ix_ipallocations_port_id"), "ipallocations", ["port_id"], unique=False)
    op.create_index(
        op.f("ix_ipallocations_subnet_id"), "ipallocations", ["subnet_id"], unique=False
    )
    op.create_table(
        "routers",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("project_id", sa.String(length=255), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("admin_state_up", sa.Boolean(), nullable=False),
        sa.Column("gw_port_id", sa.String(length=36), nullable=True),
        sa.Column("enable_snat", sa.Boolean(), nullable=False),
        sa.Column("routes", sa.JSON(), nullable=False),
        sa.Column("availability_zone_hints", sa.JSON(), nullable=False),
        sa.Column("description", sa.String(length=255), nullable=False),
        sa.Column("revision_number", sa.Integer(), nullable=False),
        sa.Column("tags", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["gw_port_id"], ["ports.id"], name=op.f("fk_routers_gw_port_id_ports")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_routers")),
        **TABLE_OPTIONS,
    )
    op.create_index(op.f("ix_routers_project_id"), "routers", ["project_id"], unique=False)
    op.create_table(
        "floatingips",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("project_id", sa.String(length=255), nullable=False),
        sa.Column("floating_ip_address", sa.String(length=64), nullable=False),
        sa.Column("floating_network_id", sa.String(length=36), nullable=False),
        sa.Column("floating_port_id", sa.String(length=36), nullable=False),
        sa.Column("fixed_port_id", sa.String(length=36), nullable=True),
        sa.Column("fixed_ip_address", sa.String(length=64), nullable=True),
        sa.Column("router_id", sa.String(length=36), nullable=True),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("description", sa.String(length=255), nullable=False),
        sa.Column("revision_number", sa.Integer(), nullable=False),
        sa.Column("tags", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["fixed_port_id"], ["ports.id"], name=op.f("fk_floatingips_fixed_port_id_ports")
        ),
        sa.ForeignKeyConstraint(
            ["floating_network_id"],
            ["networks.id"],
            name=op.f("fk_floatingips_floating_network_id_networks"),
        ),
        sa.ForeignKeyConstraint(
            ["floating_port_id"],
            ["ports.id"],
            name=op.f("fk_floatingips_floating_port_id_ports"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["router_id"], ["routers.id"], name=op.f("fk_floatingips_router_id_routers")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_floatingips")),
        sa.UniqueConstraint(
            "floating_network_id",
            "fixed_port_id",
            "fixed_ip_address",
            name="uniq_floatingips0network_port_address",
        ),
        **TABLE_OPTIONS,
    )
    op.create_index(
        op.f("ix_floatingips_fixed_port_id"), "floatingips", ["fixed_port_id"], unique=False
    )
    op.create_index(op.f("ix_floatingips_project_id"), "floatingips", ["project_id"], unique=False)


def downgrade() -> None:
    for table in reversed(TABLES):
        op.drop_table(table)
