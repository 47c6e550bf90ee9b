"""Volume service

The volume service's tables (Cinder's names): volume types and their extra specs,
volumes, snapshots, per-project quotas (volume_quotas) and the user messages that say
why a volume went to error; and the
`__DEFAULT__` volume type, which Cinder also creates in a migration.

Revision ID: 0010
Revises: 0009
"""

import datetime
import uuid
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

TABLE_OPTIONS: dict[str, Any] = {"mysql_engine": "InnoDB", "mysql_charset": "utf8mb4"}
TABLES = ["volume_types", "volume_type_extra_specs", "volumes", "snapshots", "volume_quotas",
          "messages"]


def _timestamps() -> list[sa.Column]:
    return [sa.Column("created_at", sa.DateTime(), nullable=True),
            sa.Column("updated_at", sa.DateTime(), nullable=True)]


def upgrade() -> None:
    op.create_table(
        "volume_types",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("description", sa.String(length=255), nullable=True),
        sa.Column("is_public", sa.Boolean(), nullable=False),
        *_timestamps(),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_volume_types")),
        sa.UniqueConstraint("name", name=op.f("uniq_volume_types0name")),
        **TABLE_OPTIONS,
    )
    op.bulk_insert(sa.table("volume_types", sa.column("id", sa.String),
                            sa.column("name", sa.String), sa.column("description", sa.String),
                            sa.column("is_public", sa.Boolean),
                            sa.column("created_at", sa.DateTime)),
                   [{"id": str(uuid.uuid4()), "name": "__DEFAULT__",
                     "description": "Default Volume Type", "is_public": True,
                     "created_at": datetime.datetime.now(datetime.UTC).replace(tzinfo=None)}])
    op.create_table(
        "volume_type_extra_specs",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("volume_type_id", sa.String(length=36), nullable=False),
        sa.Column("key", sa.String(length=255), nullable=False),
        sa.Column("value", sa.String(length=255), nullable=False),
        *_timestamps(),
        sa.ForeignKeyConstraint(["volume_type_id"], ["volume_types.id"],
                                name=op.f("fk_volume_type_extra_specs_volume_type_id_volume_types")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_volume_type_extra_specs")),
        sa.UniqueConstraint("volume_type_id", "key",
                            name=op.f("uniq_volume_type_extra_specs0volume_type_id_key")),
        **TABLE_OPTIONS,
    )
    op.create_table(
        "volumes",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("project_id", sa.String(length=255), nullable=False),
        sa.Column("user_id", sa.String(length=255), nullable=True),
        sa.Column("display_name", sa.String(length=255), nullable=True),
        sa.Column("display_description", sa.String(length=255), nullable=True),
        sa.Column("size", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=32), nullable=False),
        sa.Column("availability_zone", sa.String(length=255), nullable=False),
        sa.Column("host", sa.String(length=255), nullable=True),
        sa.Column("volume_type_id", sa.String(length=36), nullable=False),
        sa.Column("snapshot_id", sa.String(length=36), nullable=True),
        sa.Column("source_volid", sa.String(length=36), nullable=True),
        sa.Column("image_id", sa.String(length=36), nullable=True),
        sa.Column("bootable", sa.Boolean(), nullable=False),
        sa.Column("volume_metadata", sa.JSON(), nullable=False),
        *_timestamps(),
        sa.ForeignKeyConstraint(["volume_type_id"], ["volume_types.id"],
                                name=op.f("fk_volumes_volume_type_id_volume_types")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_volumes")),
        **TABLE_OPTIONS,
    )
    op.create_index(op.f("ix_volumes_project_id"), "volumes", ["project_id"], unique=False)
    op.create_table(
        "snapshots",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("project_id", sa.String(length=255), nullable=False),
        sa.Column("user_id", sa.String(length=255), nullable=True),
        sa.Column("volume_id", sa.String(length=36), nullable=False),
        sa.Column("volume_size", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=32), nullable=False),
        sa.Column("display_name", sa.String(length=255), nullable=True),
        sa.Column("display_description", sa.String(length=255), nullable=True),
        sa.Column("snapshot_metadata", sa.JSON(), nullable=False),
        *_timestamps(),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_snapshots")),
        **TABLE_OPTIONS,
    )
    op.create_index(op.f("ix_snapshots_project_id"), "snapshots", ["project_id"], unique=False)
    op.create_index(op.f("ix_snapshots_volume_id"), "snapshots", ["volume_id"], unique=False)
    op.create_table(
        "volume_quotas",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("project_id", sa.String(length=255), nullable=False),
        sa.Column("resource", sa.String(length=255), nullable=False),
        sa.Column("hard_limit", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_volume_quotas")),
        sa.UniqueConstraint("project_id", "resource",
                            name=op.f("uniq_volume_quotas0project_id_resource")),
        **TABLE_OPTIONS,
    )
    op.create_table(
        "messages",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("project_id", sa.String(length=255), nullable=False),
        sa.Column("request_id", sa.String(length=255), nullable=True),
        sa.Column("resource_type", sa.String(length=255), nullable=False),
        sa.Column("resource_uuid", sa.String(length=36), nullable=False),
        sa.Column("event_id", sa.String(length=255), nullable=False),
        sa.Column("message_level", sa.String(length=255), nullable=False),
        sa.Column("action_id", sa.String(length=10), nullable=False),
        sa.Column("detail_id", sa.String(length=10), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("expires_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_messages")),
        **TABLE_OPTIONS,
    )
    op.create_index(op.f("ix_messages_project_id"), "messages", ["project_id"], unique=False)
    op.create_index(op.f("ix_messages_resource_uuid"), "messages", ["resource_uuid"],
                    unique=False)


def downgrade() -> None:
    for table in reversed(TABLES):
        op.drop_table(table)
