"""Images: members and tags

Who a shared image is shared with and in which state (Glance's image_members), and the
tags of each image (image_tags).

Revision ID: 0004
Revises: 0003
"""

from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

TABLE_OPTIONS: dict[str, Any] = {"mysql_engine": "InnoDB", "mysql_charset": "utf8mb4"}


def upgrade() -> None:
    op.create_table(
        "image_members",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("image_id", sa.String(length=36), nullable=False),
        sa.Column("member", sa.String(length=255), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(["image_id"], ["images.id"],
                                name=op.f("fk_image_members_image_id_images")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_image_members")),
        sa.UniqueConstraint("image_id", "member", name=op.f("uniq_image_members0image_id_member")),
        **TABLE_OPTIONS,
    )
    op.create_index(op.f("ix_image_members_member"), "image_members", ["member"], unique=False)
    op.create_table(
        "image_tags",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("image_id", sa.String(length=36), nullable=False),
        sa.Column("value", sa.String(length=255), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(["image_id"], ["images.id"],
                                name=op.f("fk_image_tags_image_id_images")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_image_tags")),
        sa.UniqueConstraint("image_id", "value", name=op.f("uniq_image_tags0image_id_value")),
        **TABLE_OPTIONS,
    )


def downgrade() -> None:
    op.drop_table("image_tags")
    op.drop_index(op.f("ix_image_members_member"), table_name="image_members")
    op.drop_table("image_members")
