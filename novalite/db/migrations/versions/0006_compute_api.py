"""The rest of the compute API

The tags table: a server's tags (2.26), keyed by (resource_id, tag) as in Nova; the
quotas, project_user_quotas and quota_classes tables of os-quota-sets and
os-quota-class-sets; an index for a project's server list, newest first.

Revision ID: 0006
Revises: 0005
"""

from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

TABLE_OPTIONS: dict[str, Any] = {"mysql_engine": "InnoDB", "mysql_charset": "utf8mb4"}


def upgrade() -> None:
    op.create_table(
        "tags",
        sa.Column("resource_id", sa.String(length=36), nullable=False),
        sa.Column("tag", sa.String(length=80), nullable=False),
        sa.PrimaryKeyConstraint("resource_id", "tag", name=op.f("pk_tags")),
        **TABLE_OPTIONS,
    )
    op.create_index("ix_tags_tag", "tags", ["tag"])
    op.create_index("ix_instances_project_id_deleted_created_at", "instances",
                    ["project_id", "deleted", "created_at"])
    _limits_table("quotas", ["project_id"])
    _limits_table("project_user_quotas", ["user_id", "project_id"])
    _limits_table("quota_classes", ["class_name"])


def _limits_table(name: str, owner: list[str]) -> None:
    """A hard limit per (owner..., resource)."""
    op.create_table(
        name,
        sa.Column("id", sa.Integer(), nullable=False),
        *[sa.Column(column, sa.String(length=255), nullable=False) for column in owner],
        sa.Column("resource", sa.String(length=255), nullable=False),
        sa.Column("hard_limit", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f(f"pk_{name}")),
        sa.UniqueConstraint(*owner, "resource",
                            name=op.f(f"uniq_{name}0{'_'.join(owner)}_resource")),
        **TABLE_OPTIONS,
    )


def downgrade() -> None:
    for name in ("quota_classes", "project_user_quotas", "quotas"):
        op.drop_table(name)
    op.drop_index("ix_instances_project_id_deleted_created_at", table_name="instances")
    op.drop_index("ix_tags_tag", table_name="tags")
    op.drop_table("tags")
