"""Placement

Resource providers, resource classes, inventories, traits, placement aggregates,
consumers, consumer types and allocations.

Revision ID: 0002
Revises: 0001
"""

from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

TABLE_OPTIONS: dict[str, Any] = {"mysql_engine": "InnoDB", "mysql_charset": "utf8mb4"}


def upgrade() -> None:
    op.create_table(
        "consumer_types",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_consumer_types")),
        sa.UniqueConstraint("name", name=op.f("uniq_consumer_types0name")),
        **TABLE_OPTIONS,
    )
    op.create_table(
        "placement_aggregates",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("uuid", sa.String(length=36), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_placement_aggregates")),
        sa.UniqueConstraint("uuid", name=op.f("uniq_placement_aggregates0uuid")),
        **TABLE_OPTIONS,
    )
    op.create_table(
        "resource_classes",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_resource_classes")),
        sa.UniqueConstraint("name", name=op.f("uniq_resource_classes0name")),
        **TABLE_OPTIONS,
    )
    op.create_table(
        "resource_providers",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("uuid", sa.String(length=36), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("generation", sa.Integer(), nullable=False),
        sa.Column("root_provider_id", sa.Integer(), nullable=True),
        sa.Column("parent_provider_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["parent_provider_id"],
            ["resource_providers.id"],
            name=op.f("fk_resource_providers_parent_provider_id_resource_providers"),
        ),
        sa.ForeignKeyConstraint(
            ["root_provider_id"],
            ["resource_providers.id"],
            name=op.f("fk_resource_providers_root_provider_id_resource_providers"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_resource_providers")),
        sa.UniqueConstraint("name", name=op.f("uniq_resource_providers0name")),
        sa.UniqueConstraint("uuid", name=op.f("uniq_resource_providers0uuid")),
        **TABLE_OPTIONS,
    )
    op.create_index(
        "ix_resource_providers_parent_provider_id",
        "resource_providers",
        ["parent_provider_id"],
        unique=False,
    )
    op.create_index(
        "ix_resource_providers_root_provider_id",
        "resource_providers",
        ["root_provider_id"],
        unique=False,
    )
    op.create_table(
        "traits",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_traits")),
        sa.UniqueConstraint("name", name=op.f("uniq_traits0name")),
        **TABLE_OPTIONS,
    )
    op.create_table(
        "allocations",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("resource_provider_id", sa.Integer(), nullable=False),
        sa.Column("consumer_id", sa.String(length=36), nullable=False),
        sa.Column("resource_class_id", sa.Integer(), nullable=False),
        sa.Column("used", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["resource_class_id"],
            ["resource_classes.id"],
            name=op.f("fk_allocations_resource_class_id_resource_classes"),
        ),
        sa.ForeignKeyConstraint(
            ["resource_provider_id"],
            ["resource_providers.id"],
            name=op.f("fk_allocations_resource_provider_id_resource_providers"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_allocations")),
        **TABLE_OPTIONS,
    )
    op.create_index("ix_allocations_consumer_id", "allocations", ["consumer_id"], unique=False)
    op.create_index(
        "ix_allocations_resource_class_id", "allocations", ["resource_class_id"], unique=False
    )
    op.create_index(
        "ix_allocations_resource_provider_id_resource_class_id_used",
        "allocations",
        ["resource_provider_id", "resource_class_id", "used"],
        unique=False,
    )
    op.create_table(
        "consumers",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("uuid", sa.String(length=36), nullable=False),
        sa.Column("project_id", sa.String(length=255), nullable=False),
        sa.Column("user_id", sa.String(length=255), nullable=False),
        sa.Column("generation", sa.Integer(), nullable=False),
        sa.Column("consumer_type_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["consumer_type_id"],
            ["consumer_types.id"],
            name=op.f("fk_consumers_consumer_type_id_consumer_types"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_consumers")),
        sa.UniqueConstraint("uuid", name=op.f("uniq_consumers0uuid")),
        **TABLE_OPTIONS,
    )
    op.create_index(
        "ix_consumers_project_id_user_id", "consumers", ["project_id", "user_id"], unique=False
    )
    op.create_table(
        "inventories",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("resource_provider_id", sa.Integer(), nullable=False),
        sa.Column("resource_class_id", sa.Integer(), nullable=False),
        sa.Column("total", sa.Integer(), nullable=False),
        sa.Column("reserved", sa.Integer(), nullable=False),
        sa.Column("min_unit", sa.Integer(), nullable=False),
        sa.Column("max_unit", sa.Integer(), nullable=False),
        sa.Column("step_size", sa.Integer(), nullable=False),
        sa.Column("allocation_ratio", sa.Float(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["resource_class_id"],
            ["resource_classes.id"],
            name=op.f("fk_inventories_resource_class_id_resource_classes"),
        ),
        sa.ForeignKeyConstraint(
            ["resource_provider_id"],
            ["resource_providers.id"],
            name=op.f("fk_inventories_resource_provider_id_resource_providers"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_inventories")),
        sa.UniqueConstraint(
            "resource_provider_id",
            "resource_class_id",
            name=op.f("uniq_inventories0resource_provider_id_resource_class_id"),
        ),
        **TABLE_OPTIONS,
    )
    op.create_index(
        "ix_inventories_resource_class_id", "inventories", ["resource_class_id"], unique=False
    )
    op.create_table(
        "resource_provider_aggregates",
        sa.Column("resource_provider_id", sa.Integer(), nullable=False),
        sa.Column("aggregate_id", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["aggregate_id"],
            ["placement_aggregates.id"],
            name="fk_rp_aggregates_aggregate_id",
        ),
        sa.ForeignKeyConstraint(
            ["resource_provider_id"],
            ["resource_providers.id"],
            name="fk_rp_aggregates_resource_provider_id",
        ),
        sa.PrimaryKeyConstraint(
            "resource_provider_id", "aggregate_id", name=op.f("pk_resource_provider_aggregates")
        ),
        **TABLE_OPTIONS,
    )
    op.create_index(
        "ix_resource_provider_aggregates_aggregate_id",
        "resource_provider_aggregates",
        ["aggregate_id"],
        unique=False,
    )
    op.create_table(
        "resource_provider_traits",
        sa.Column("resource_provider_id", sa.Integer(), nullable=False),
        sa.Column("trait_id", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["resource_provider_id"],
            ["resource_providers.id"],
            name="fk_rp_traits_resource_provider_id",
        ),
        sa.ForeignKeyConstraint(
            ["trait_id"], ["traits.id"], name=op.f("fk_resource_provider_traits_trait_id_traits")
        ),
        sa.PrimaryKeyConstraint(
            "resource_provider_id", "trait_id", name=op.f("pk_resource_provider_traits")
        ),
        **TABLE_OPTIONS,
    )
    op.create_index(
        "ix_resource_provider_traits_trait_id",
        "resource_provider_traits",
        ["trait_id"],
        unique=False,
    )


def downgrade() -> None:
    """Drop every placement table, dependents first; their indexes go with them."""
    op.drop_table("resource_provider_traits")
    op.drop_table("resource_provider_aggregates")
    op.drop_table("inventories")
    op.drop_table("consumers")
    op.drop_table("allocations")
    op.drop_table("traits")
    op.drop_table("resource_providers")
    op.drop_table("resource_classes")
    op.drop_table("placement_aggregates")
    op.drop_table("consumer_types")
