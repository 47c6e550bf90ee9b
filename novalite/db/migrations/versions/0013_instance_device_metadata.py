"""Instance device metadata

Where a guest finds its tagged devices (Nova's instance_extra.device_metadata): each
tagged NIC and disk with its bus and address in the guest, as the virt driver reported
them, for the metadata service and the config drive.

Revision ID: 0013
Revises: 0012
"""

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("instances", sa.Column("device_metadata", sa.JSON(), nullable=True))


def downgrade() -> None:
    op.drop_column("instances", "device_metadata")
