"""Initial schema

Every table of the foundation: services, compute nodes, flavors, images, instances and
their metadata, faults, actions and events, request specs, aggregates, server groups.

Revision ID: 0001
Revises: (none)
"""

from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

# Explicit so that a database created with another default (MariaDB's upstream default is
# latin1) still stores any name a user types; ignored by PostgreSQL and SQLite.
TABLE_OPTIONS: dict[str, Any] = {"mysql_engine": "InnoDB", "mysql_charset": "utf8mb4"}


def upgrade() -> None:
    op.create_table(
        "aggregates",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("uuid", sa.String(length=36), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_aggregates")),
        sa.UniqueConstraint("name", name=op.f("uniq_aggregates0name")),
        sa.UniqueConstraint("uuid", name=op.f("uniq_aggregates0uuid")),
        **TABLE_OPTIONS,
    )
    op.create_table(
        "compute_nodes",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("uuid", sa.String(length=36), nullable=False),
        sa.Column("service_id", sa.Integer(), nullable=True),
        sa.Column("host", sa.String(length=255), nullable=False),
        sa.Column("hypervisor_hostname", sa.String(length=255), nullable=False),
        sa.Column("hypervisor_type", sa.String(length=255), nullable=False),
        sa.Column("hypervisor_version", sa.Integer(), nullable=False),
        sa.Column("vcpus", sa.Integer(), nullable=False),
        sa.Column("memory_mb", sa.Integer(), nullable=False),
        sa.Column("local_gb", sa.Integer(), nullable=False),
        sa.Column("vcpus_used", sa.Integer(), nullable=False),
        sa.Column("memory_mb_used", sa.Integer(), nullable=False),
        sa.Column("local_gb_used", sa.Integer(), nullable=False),
        sa.Column("free_ram_mb", sa.Integer(), nullable=True),
        sa.Column("free_disk_gb", sa.Integer(), nullable=True),
        sa.Column("disk_available_least", sa.Integer(), nullable=True),
        sa.Column("current_workload", sa.Integer(), nullable=False),
        sa.Column("running_vms", sa.Integer(), nullable=False),
        sa.Column("cpu_info", sa.Text(), nullable=False),
        sa.Column("host_ip", sa.String(length=39), nullable=True),
        sa.Column("supported_instances", sa.JSON(), nullable=True),
        sa.Column("stats", sa.JSON(), nullable=True),
        sa.Column("metrics", sa.JSON(), nullable=True),
        sa.Column("numa_topology", sa.JSON(), nullable=True),
        sa.Column("pci_stats", sa.JSON(), nullable=True),
        sa.Column("cpu_allocation_ratio", sa.Float(), nullable=False),
        sa.Column("ram_allocation_ratio", sa.Float(), nullable=False),
        sa.Column("disk_allocation_ratio", sa.Float(), nullable=False),
        sa.Column("reserved_host_cpus", sa.Integer(), nullable=False),
        sa.Column("reserved_host_memory_mb", sa.Integer(), nullable=False),
        sa.Column("reserved_host_disk_mb", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=True),
        sa.Column("deleted_at", sa.DateTime(), nullable=True),
        sa.Column("deleted", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_compute_nodes")),
        sa.UniqueConstraint(
            "host",
            "hypervisor_hostname",
            "deleted",
            name=op.f("uniq_compute_nodes0host_hypervisor_hostname_deleted"),
        ),
        sa.UniqueConstraint("uuid", name=op.f("uniq_compute_nodes0uuid")),
        **TABLE_OPTIONS,
    )
    op.create_table(
        "flavors",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("flavorid", sa.String(length=255), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("memory_mb", sa.Integer(), nullable=False),
        sa.Column("vcpus", sa.Integer(), nullable=False),
        sa.Column("root_gb", sa.Integer(), nullable=False),
        sa.Column("ephemeral_gb", sa.Integer(), nullable=False),
        sa.Column("swap", sa.Integer(), nullable=False),
        sa.Column("rxtx_factor", sa.Float(), nullable=False),
        sa.Column("vcpu_weight", sa.Integer(), nullable=True),
        sa.Column("disabled", sa.Boolean(), nullable=False),
        sa.Column("is_public", sa.Boolean(), nullable=False),
        sa.Column("description", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_flavors")),
        sa.UniqueConstraint("flavorid", name=op.f("uniq_flavors0flavorid")),
        sa.UniqueConstraint("name", name=op.f("uniq_flavors0name")),
        **TABLE_OPTIONS,
    )
    op.create_table(
        "images",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=True),
        sa.Column("status", sa.String(length=30), nullable=False),
        sa.Column("visibility", sa.String(length=20), nullable=False),
        sa.Column("owner", sa.String(length=255), nullable=True),
        sa.Column("disk_format", sa.String(length=20), nullable=True),
        sa.Column("container_format", sa.String(length=20), nullable=True),
        sa.Column("size", sa.BigInteger(), nullable=True),
        sa.Column("virtual_size", sa.BigInteger(), nullable=True),
        sa.Column("min_disk", sa.Integer(), nullable=False),
        sa.Column("min_ram", sa.Integer(), nullable=False),
        sa.Column("protected", sa.Boolean(), nullable=False),
        sa.Column("checksum", sa.String(length=32), nullable=True),
        sa.Column("os_hash_algo", sa.String(length=64), nullable=True),
        sa.Column("os_hash_value", sa.String(length=128), nullable=True),
        sa.Column("properties", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=True),
        sa.Column("deleted_at", sa.DateTime(), nullable=True),
        sa.Column("deleted", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_images")),
        **TABLE_OPTIONS,
    )
    op.create_index(op.f("ix_images_name"), "images", ["name"], unique=False)

    op.create_table(
        "instance_actions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("action", sa.String(length=255), nullable=False),
        sa.Column("instance_uuid", sa.String(length=36), nullable=False),
        sa.Column("request_id", sa.String(length=255), nullable=False),
        sa.Column("user_id", sa.String(length=255), nullable=True),
        sa.Column("project_id", sa.String(length=255), nullable=True),
        sa.Column("start_time", sa.DateTime(), nullable=True),
        sa.Column("finish_time", sa.DateTime(), nullable=True),
        sa.Column("message", sa.String(length=255), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_instance_actions")),
        **TABLE_OPTIONS,
    )
    op.create_index(
        op.f("ix_instance_actions_instance_uuid_request_id"),
        "instance_actions",
        ["instance_uuid", "request_id"],
        unique=False,
    )

    op.create_table(
        "instance_faults",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("instance_uuid", sa.String(length=36), nullable=False),
        sa.Column("code", sa.Integer(), nullable=False),
        sa.Column("message", sa.String(length=255), nullable=True),
        sa.Column("details", sa.Text(), nullable=True),
        sa.Column("host", sa.String(length=255), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=True),
        sa.Column("deleted_at", sa.DateTime(), nullable=True),
        sa.Column("deleted", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_instance_faults")),
        **TABLE_OPTIONS,
    )
    op.create_index(
        op.f("ix_instance_faults_instance_uuid"), "instance_faults", ["instance_uuid"], unique=False
    )

    op.create_table(
        "instance_groups",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("uuid", sa.String(length=36), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=True),
        sa.Column("user_id", sa.String(length=255), nullable=True),
        sa.Column("project_id", sa.String(length=255), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_instance_groups")),
        sa.UniqueConstraint("uuid", name=op.f("uniq_instance_groups0uuid")),
        **TABLE_OPTIONS,
    )
    op.create_table(
        "instance_metadata",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("instance_uuid", sa.String(length=36), nullable=False),
        sa.Column("key", sa.String(length=255), nullable=False),
        sa.Column("value", sa.String(length=255), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=True),
        sa.Column("deleted_at", sa.DateTime(), nullable=True),
        sa.Column("deleted", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_instance_metadata")),
        **TABLE_OPTIONS,
    )
    op.create_index(
        op.f("ix_instance_metadata_instance_uuid"),
        "instance_metadata",
        ["instance_uuid"],
        unique=False,
    )

    op.create_table(
        "instances",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("uuid", sa.String(length=36), nullable=False),
        sa.Column("display_name", sa.String(length=255), nullable=True),
        sa.Column("display_description", sa.Text(), nullable=True),
        sa.Column("hostname", sa.String(length=255), nullable=True),
        sa.Column("project_id", sa.String(length=255), nullable=True),
        sa.Column("user_id", sa.String(length=255), nullable=True),
        sa.Column("image_ref", sa.String(length=255), nullable=True),
        sa.Column("instance_type_id", sa.Integer(), nullable=True),
        sa.Column("flavor", sa.JSON(), nullable=True),
        sa.Column("vcpus", sa.Integer(), nullable=True),
        sa.Column("memory_mb", sa.Integer(), nullable=True),
        sa.Column("root_gb", sa.Integer(), nullable=True),
        sa.Column("ephemeral_gb", sa.Integer(), nullable=True),
        sa.Column("host", sa.String(length=255), nullable=True),
        sa.Column("node", sa.String(length=255), nullable=True),
        sa.Column("launched_on", sa.Text(), nullable=True),
        sa.Column("vm_state", sa.String(length=255), nullable=True),
        sa.Column("task_state", sa.String(length=255), nullable=True),
        sa.Column("power_state", sa.Integer(), nullable=False),
        sa.Column("availability_zone", sa.String(length=255), nullable=True),
        sa.Column("key_name", sa.String(length=255), nullable=True),
        sa.Column("key_data", sa.Text(), nullable=True),
        sa.Column("user_data", sa.Text(), nullable=True),
        sa.Column("config_drive", sa.String(length=255), nullable=True),
        sa.Column("locked", sa.Boolean(), nullable=False),
        sa.Column("locked_by", sa.String(length=20), nullable=True),
        sa.Column("launch_index", sa.Integer(), nullable=True),
        sa.Column("reservation_id", sa.String(length=255), nullable=True),
        sa.Column("access_ip_v4", sa.String(length=39), nullable=True),
        sa.Column("access_ip_v6", sa.String(length=39), nullable=True),
        sa.Column("progress", sa.Integer(), nullable=True),
        sa.Column("scheduled_at", sa.DateTime(), nullable=True),
        sa.Column("launched_at", sa.DateTime(), nullable=True),
        sa.Column("terminated_at", sa.DateTime(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=True),
        sa.Column("deleted_at", sa.DateTime(), nullable=True),
        sa.Column("deleted", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_instances")),
        sa.UniqueConstraint("uuid", "deleted", name=op.f("uniq_instances0uuid_deleted")),
        **TABLE_OPTIONS,
    )
    op.create_index(
        op.f("ix_instances_host_deleted"), "instances", ["host", "deleted"], unique=False
    )
    op.create_index(
        op.f("ix_instances_project_id_deleted"),
        "instances",
        ["project_id", "deleted"],
        unique=False,
    )

    op.create_table(
        "request_specs",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("instance_uuid", sa.String(length=36), nullable=False),
        sa.Column("spec", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_request_specs")),
        sa.UniqueConstraint("instance_uuid", name=op.f("uniq_request_specs0instance_uuid")),
        **TABLE_OPTIONS,
    )
    op.create_table(
        "services",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("uuid", sa.String(length=36), nullable=False),
        sa.Column("host", sa.String(length=255), nullable=False),
        sa.Column("binary", sa.String(length=255), nullable=False),
        sa.Column("topic", sa.String(length=255), nullable=True),
        sa.Column("report_count", sa.Integer(), nullable=False),
        sa.Column("disabled", sa.Boolean(), nullable=False),
        sa.Column("disabled_reason", sa.String(length=255), nullable=True),
        sa.Column("forced_down", sa.Boolean(), nullable=False),
        sa.Column("last_seen_up", sa.DateTime(), nullable=True),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=True),
        sa.Column("deleted_at", sa.DateTime(), nullable=True),
        sa.Column("deleted", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_services")),
        sa.UniqueConstraint(
            "host", "binary", "deleted", name=op.f("uniq_services0host_binary_deleted")
        ),
        sa.UniqueConstraint("uuid", name=op.f("uniq_services0uuid")),
        **TABLE_OPTIONS,
    )
    op.create_table(
        "aggregate_hosts",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("host", sa.String(length=255), nullable=False),
        sa.Column("aggregate_id", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["aggregate_id"],
            ["aggregates.id"],
            name=op.f("fk_aggregate_hosts_aggregate_id_aggregates"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_aggregate_hosts")),
        sa.UniqueConstraint(
            "host", "aggregate_id", name=op.f("uniq_aggregate_hosts0host_aggregate_id")
        ),
        **TABLE_OPTIONS,
    )
    op.create_table(
        "aggregate_metadata",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("aggregate_id", sa.Integer(), nullable=False),
        sa.Column("key", sa.String(length=255), nullable=False),
        sa.Column("value", sa.String(length=255), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["aggregate_id"],
            ["aggregates.id"],
            name=op.f("fk_aggregate_metadata_aggregate_id_aggregates"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_aggregate_metadata")),
        sa.UniqueConstraint(
            "aggregate_id", "key", name=op.f("uniq_aggregate_metadata0aggregate_id_key")
        ),
        **TABLE_OPTIONS,
    )
    op.create_table(
        "flavor_extra_specs",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("flavor_id", sa.Integer(), nullable=False),
        sa.Column("key", sa.String(length=255), nullable=False),
        sa.Column("value", sa.String(length=255), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["flavor_id"], ["flavors.id"], name=op.f("fk_flavor_extra_specs_flavor_id_flavors")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_flavor_extra_specs")),
        sa.UniqueConstraint("flavor_id", "key", name=op.f("uniq_flavor_extra_specs0flavor_id_key")),
        **TABLE_OPTIONS,
    )
    op.create_index(
        op.f("ix_flavor_extra_specs_flavor_id"), "flavor_extra_specs", ["flavor_id"], unique=False
    )

    op.create_table(
        "flavor_projects",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("flavor_id", sa.Integer(), nullable=False),
        sa.Column("project_id", sa.String(length=255), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["flavor_id"], ["flavors.id"], name=op.f("fk_flavor_projects_flavor_id_flavors")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_flavor_projects")),
        sa.UniqueConstraint(
            "flavor_id", "project_id", name=op.f("uniq_flavor_projects0flavor_id_project_id")
        ),
        **TABLE_OPTIONS,
    )
    op.create_table(
        "instance_actions_events",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("event", sa.String(length=255), nullable=False),
        sa.Column("action_id", sa.Integer(), nullable=False),
        sa.Column("start_time", sa.DateTime(), nullable=True),
        sa.Column("finish_time", sa.DateTime(), nullable=True),
        sa.Column("result", sa.String(length=255), nullable=True),
        sa.Column("traceback", sa.Text(), nullable=True),
        sa.Column("host", sa.String(length=255), nullable=True),
        sa.Column("details", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["action_id"],
            ["instance_actions.id"],
            name=op.f("fk_instance_actions_events_action_id_instance_actions"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_instance_actions_events")),
        **TABLE_OPTIONS,
    )
    op.create_index(
        op.f("ix_instance_actions_events_action_id"),
        "instance_actions_events",
        ["action_id"],
        unique=False,
    )

    op.create_table(
        "instance_group_member",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("instance_uuid", sa.String(length=36), nullable=False),
        sa.Column("group_id", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["group_id"],
            ["instance_groups.id"],
            name=op.f("fk_instance_group_member_group_id_instance_groups"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_instance_group_member")),
        sa.UniqueConstraint(
            "group_id",
            "instance_uuid",
            name=op.f("uniq_instance_group_member0group_id_instance_uuid"),
        ),
        **TABLE_OPTIONS,
    )
    op.create_table(
        "instance_group_policy",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("policy", sa.String(length=255), nullable=False),
        sa.Column("rules", sa.JSON(), nullable=True),
        sa.Column("group_id", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["group_id"],
            ["instance_groups.id"],
            name=op.f("fk_instance_group_policy_group_id_instance_groups"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_instance_group_policy")),
        **TABLE_OPTIONS,
    )
    op.create_index(
        op.f("ix_instance_group_policy_group_id"),
        "instance_group_policy",
        ["group_id"],
        unique=False,
    )


def downgrade() -> None:
    """Drop every table, dependents first; their indexes go with them."""
    op.drop_table("instance_group_policy")
    op.drop_table("instance_group_member")
    op.drop_table("instance_actions_events")
    op.drop_table("flavor_projects")
    op.drop_table("flavor_extra_specs")
    op.drop_table("aggregate_metadata")
    op.drop_table("aggregate_hosts")
    op.drop_table("services")
    op.drop_table("request_specs")
    op.drop_table("instances")
    op.drop_table("instance_metadata")
    op.drop_table("instance_groups")
    op.drop_table("instance_faults")
    op.drop_table("instance_actions")
    op.drop_table("images")
    op.drop_table("flavors")
    op.drop_table("compute_nodes")
    op.drop_table("aggregates")
