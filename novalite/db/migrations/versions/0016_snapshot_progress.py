"""Snapshot progress

Cinder's snapshots.progress: what whoever takes the snapshot last reported of it (Nova
says "90%" when its share of an assisted snapshot is done).

Revision ID: 0016
Revises: 0015
"""

import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("snapshots", sa.Column("progress", sa.String(255), nullable=True))


def downgrade() -> None:
    op.drop_column("snapshots", "progress")
