"""Migrations

The migrations table: the record of each resize and cold migration (Nova's columns),
whose uuid is the placement consumer of the source allocation during the move.

Revision ID: 0008
Revises: 0007
"""

from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

TABLE_OPTIONS: dict[str, Any] = {"mysql_engine": "InnoDB", "mysql_charset": "utf8mb4"}


def upgrade() -> None:
    op.create_table(
        "migrations",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("uuid", sa.String(length=36), nullable=False),
        sa.Column("source_compute", sa.String(length=255), nullable=True),
        sa.Column("dest_compute", sa.String(length=255), nullable=True),
        sa.Column("source_node", sa.String(length=255), nullable=True),
        sa.Column("dest_node", sa.String(length=255), nullable=True),
        sa.Column("dest_host", sa.String(length=255), nullable=True),
        sa.Column("old_instance_type_id", sa.Integer(), nullable=True),
        sa.Column("new_instance_type_id", sa.Integer(), nullable=True),
        sa.Column("instance_uuid", sa.String(length=36), nullable=True),
        sa.Column("status", sa.String(length=255), nullable=True),
        sa.Column("migration_type", sa.String(length=255), nullable=True),
        sa.Column("hidden", sa.Boolean(), nullable=False),
        sa.Column("cross_cell_move", sa.Boolean(), nullable=False),
        sa.Column("user_id", sa.String(length=255), nullable=True),
        sa.Column("project_id", sa.String(length=255), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=True),
        sa.Column("deleted_at", sa.DateTime(), nullable=True),
        sa.Column("deleted", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_migrations")),
        sa.UniqueConstraint("uuid", name=op.f("uniq_migrations0uuid")),
        **TABLE_OPTIONS,
    )
    op.create_index("ix_migrations_instance_uuid_status", "migrations",
                    ["instance_uuid", "status"])
    op.create_index("ix_migrations_source_compute_dest_compute_status", "migrations",
                    ["source_compute", "dest_compute", "status"])
    op.create_index("ix_migrations_updated_at", "migrations", ["updated_at"])


def downgrade() -> None:
    op.drop_table("migrations")
