"""Share mapping

The Manila shares attached to servers (Nova's share_mapping, 2.97's
/servers/{id}/shares): one row per share and server, its tag unique on the server.

Revision ID: 0017
Revises: 0016
"""

from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None

TABLE_OPTIONS: dict[str, Any] = {"mysql_engine": "InnoDB", "mysql_charset": "utf8mb4"}


def upgrade() -> None:
    op.create_table(
        "share_mapping",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("uuid", sa.String(36), nullable=False),
        sa.Column("instance_uuid", sa.String(36), nullable=False),
        sa.Column("share_id", sa.String(36), nullable=False),
        sa.Column("status", sa.String(32), nullable=False),
        sa.Column("tag", sa.String(48), nullable=False),
        sa.Column("export_location", sa.Text(), nullable=False),
        sa.Column("share_proto", sa.String(32), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=True),
        sa.UniqueConstraint("instance_uuid", "share_id",
                            name="uniq_share_mapping0instance_uuid_share_id"),
        sa.UniqueConstraint("instance_uuid", "tag", name="uniq_share_mapping0instance_uuid_tag"),
        **TABLE_OPTIONS,
    )


def downgrade() -> None:
    op.drop_table("share_mapping")
