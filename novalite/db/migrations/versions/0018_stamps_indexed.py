"""Services and compute nodes by when they changed

Every scheduling decision's refresh reads the services and compute nodes stamped since
its last one. With no index on the stamps, SQLite scanned every row for it, at 10,000
hosts 1.5 ms of CPU a decision for the services and 2 ms for the nodes, nearly always to
find a handful.

Revision ID: 0018
Revises: 0017
"""

from alembic import op

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None

STAMPED = {"services": ("updated_at", "created_at"),
           "compute_nodes": ("updated_at", "created_at", "deleted_at")}


def upgrade() -> None:
    for table, stamps in STAMPED.items():
        for stamp in stamps:
            op.create_index(f"ix_{table}_{stamp}", table, [stamp])


def downgrade() -> None:
    for table, stamps in STAMPED.items():
        for stamp in stamps:
            op.drop_index(f"ix_{table}_{stamp}", table_name=table)
