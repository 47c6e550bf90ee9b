"""Block device mapping sources

What a volume a server boots with is made from, as Nova's block_device_mapping keeps
it: the image, volume snapshot or nothing (blank) the compute creates the volume from
when it builds the server, and the volume type to create it with.

Revision ID: 0012
Revises: 0011
"""

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


COLUMNS = (("image_id", sa.String(length=36)), ("snapshot_id", sa.String(length=36)),
           ("volume_type", sa.String(length=255)))


def upgrade() -> None:
    for name, kind in COLUMNS:
        op.add_column("block_device_mapping", sa.Column(name, kind, nullable=True))


def downgrade() -> None:
    for name, _ in reversed(COLUMNS):
        op.drop_column("block_device_mapping", name)
