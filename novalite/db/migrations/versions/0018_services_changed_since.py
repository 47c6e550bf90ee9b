"""Services by when they changed

Every scheduling decision's refresh reads the services stamped since its last one. With
no index on the stamps, SQLite scanned every service for it: 1.5 ms of CPU a decision
at 10,000 hosts, nearly always to find none (heartbeats come in batches).

Revision ID: 0018
Revises: 0017
"""

from alembic import op

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_services_updated_at", "services", ["updated_at"])
    op.create_index("ix_services_created_at", "services", ["created_at"])


def downgrade() -> None:
    op.drop_index("ix_services_created_at", table_name="services")
    op.drop_index("ix_services_updated_at", table_name="services")
