"""Volume attachments and block device mappings

Cinder's `volume_attachment`: which consumer (a server) reserved or uses a volume, the
connector it gave and the connection the volume manager made for it; and Nova's
`block_device_mapping`: the volumes attached to each instance, with their attachment
and connection.

Revision ID: 0011
Revises: 0010
"""

from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None

TABLE_OPTIONS: dict[str, Any] = {"mysql_engine": "InnoDB", "mysql_charset": "utf8mb4"}


def upgrade() -> None:
    op.create_table(
        "volume_attachment",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("volume_id", sa.String(length=36), nullable=False),
        sa.Column("instance_uuid", sa.String(length=36), nullable=True),
        sa.Column("attached_host", sa.String(length=255), nullable=True),
        sa.Column("mountpoint", sa.String(length=255), nullable=True),
        sa.Column("attach_time", sa.DateTime(), nullable=True),
        sa.Column("attach_mode", sa.String(length=36), nullable=False),
        sa.Column("attach_status", sa.String(length=255), nullable=False),
        sa.Column("connector", sa.JSON(), nullable=True),
        sa.Column("connection_info", sa.JSON(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(["volume_id"], ["volumes.id"],
                                name=op.f("fk_volume_attachment_volume_id_volumes")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_volume_attachment")),
        **TABLE_OPTIONS,
    )
    op.create_index(op.f("ix_volume_attachment_volume_id"), "volume_attachment",
                    ["volume_id"], unique=False)
    op.create_index(op.f("ix_volume_attachment_instance_uuid"), "volume_attachment",
                    ["instance_uuid"], unique=False)
    op.create_table(
        "block_device_mapping",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("uuid", sa.String(length=36), nullable=False),
        sa.Column("instance_uuid", sa.String(length=36), nullable=False),
        sa.Column("source_type", sa.String(length=255), nullable=False),
        sa.Column("destination_type", sa.String(length=255), nullable=False),
        sa.Column("device_type", sa.String(length=255), nullable=True),
        sa.Column("disk_bus", sa.String(length=255), nullable=True),
        sa.Column("boot_index", sa.Integer(), nullable=True),
        sa.Column("device_name", sa.String(length=255), nullable=True),
        sa.Column("delete_on_termination", sa.Boolean(), nullable=False),
        sa.Column("volume_id", sa.String(length=36), nullable=True),
        sa.Column("volume_size", sa.Integer(), nullable=True),
        sa.Column("attachment_id", sa.String(length=36), nullable=True),
        sa.Column("connection_info", sa.JSON(), nullable=True),
        sa.Column("tag", sa.String(length=255), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_block_device_mapping")),
        sa.UniqueConstraint("uuid", name=op.f("uniq_block_device_mapping0uuid")),
        sa.UniqueConstraint("instance_uuid", "volume_id",
                            name=op.f("uniq_block_device_mapping0instance_uuid_volume_id")),
        **TABLE_OPTIONS,
    )
    op.create_index(op.f("ix_block_device_mapping_instance_uuid"), "block_device_mapping",
                    ["instance_uuid"], unique=False)
    op.create_index(op.f("ix_block_device_mapping_volume_id"), "block_device_mapping",
                    ["volume_id"], unique=False)


def downgrade() -> None:
    op.drop_table("block_device_mapping")
    op.drop_table("volume_attachment")
