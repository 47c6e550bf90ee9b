"""Instance system metadata

Nova's per-instance system metadata: what the services keep about a server beyond its
columns (the reason it was locked, and what later lifecycle actions remember).

Revision ID: 0009
Revises: 0008
"""

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("instances", sa.Column("system_metadata", sa.JSON(), nullable=True))


def downgrade() -> None:
    op.drop_column("instances", "system_metadata")
