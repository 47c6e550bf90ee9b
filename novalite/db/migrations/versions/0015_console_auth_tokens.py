"""Console auth tokens

The tokens behind remote console URLs (Nova's console_auth_tokens): only a token's
hash is kept, with where the console listens and when the token expires.

Revision ID: 0015
Revises: 0014
"""

from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None

TABLE_OPTIONS: dict[str, Any] = {"mysql_engine": "InnoDB", "mysql_charset": "utf8mb4"}


def upgrade() -> None:
    op.create_table(
        "console_auth_tokens",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("token_hash", sa.String(255), nullable=False),
        sa.Column("console_type", sa.String(255), nullable=False),
        sa.Column("host", sa.String(255), nullable=False),
        sa.Column("port", sa.Integer(), nullable=False),
        sa.Column("internal_access_path", sa.String(255), nullable=True),
        sa.Column("instance_uuid", sa.String(36), nullable=False),
        sa.Column("expires", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.UniqueConstraint("token_hash", name="uniq_console_auth_tokens0token_hash"),
        **TABLE_OPTIONS,
    )
    op.create_index("ix_console_auth_tokens_instance_uuid", "console_auth_tokens",
                    ["instance_uuid"])
    op.create_index("ix_console_auth_tokens_expires", "console_auth_tokens", ["expires"])


def downgrade() -> None:
    op.drop_index("ix_console_auth_tokens_expires", "console_auth_tokens")
    op.drop_index("ix_console_auth_tokens_instance_uuid", "console_auth_tokens")
    op.drop_table("console_auth_tokens")
