"""Build outbox

The builds an API saved and no conductor has taken yet: an API killed between saving a
server and sending its build on leaves its row here, and sends the build when it
starts again.

Revision ID: 0014
Revises: 0013
"""

from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None

TABLE_OPTIONS: dict[str, Any] = {"mysql_engine": "InnoDB", "mysql_charset": "utf8mb4"}


def upgrade() -> None:
    op.create_table(
        "build_outbox",
        sa.Column("instance_uuid", sa.String(36), primary_key=True),
        sa.Column("host", sa.String(255), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        **TABLE_OPTIONS,
    )
    op.create_index("ix_build_outbox_host", "build_outbox", ["host"])


def downgrade() -> None:
    op.drop_index("ix_build_outbox_host", "build_outbox")
    op.drop_table("build_outbox")
