"""Key pairs

The key_pairs table: users' SSH public keys and x509 certificates, by name per user.

Revision ID: 0005
Revises: 0004
"""

from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

TABLE_OPTIONS: dict[str, Any] = {"mysql_engine": "InnoDB", "mysql_charset": "utf8mb4"}
KEYPAIR_TYPES = sa.Enum("ssh", "x509", name="keypair_types")


def upgrade() -> None:
    op.create_table(
        "key_pairs",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("user_id", sa.String(length=255), nullable=False),
        sa.Column("fingerprint", sa.String(length=255), nullable=True),
        sa.Column("public_key", sa.Text(), nullable=True),
        sa.Column("type", KEYPAIR_TYPES, server_default="ssh", nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_key_pairs")),
        sa.UniqueConstraint("user_id", "name", name=op.f("uniq_key_pairs0user_id_name")),
        **TABLE_OPTIONS,
    )


def downgrade() -> None:
    """Drop the table, then (PostgreSQL) the enum type it leaves behind."""
    op.drop_table("key_pairs")
    KEYPAIR_TYPES.drop(op.get_bind(), checkfirst=True)
