"""Identity

Domains, projects, users, roles, implied roles, role assignments, the service catalog
(services, endpoints, regions) and token revocation events (Keystone's table names).

Revision ID: 0003
Revises: 0002
"""

from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

TABLE_OPTIONS: dict[str, Any] = {"mysql_engine": "InnoDB", "mysql_charset": "utf8mb4"}


def upgrade() -> None:
    op.create_table(
        "domain",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("description", sa.Text(), nullable=True),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_domain")),
        sa.UniqueConstraint("name", name=op.f("uniq_domain0name")),
        **TABLE_OPTIONS,
    )
    op.create_table(
        "region",
        sa.Column("id", sa.String(length=255), nullable=False),
        sa.Column("description", sa.String(length=255), nullable=False),
        sa.Column("parent_region_id", sa.String(length=255), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_region")),
        **TABLE_OPTIONS,
    )
    op.create_table(
        "revocation_event",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("audit_id", sa.String(length=32), nullable=True),
        sa.Column("user_id", sa.String(length=64), nullable=True),
        sa.Column("project_id", sa.String(length=64), nullable=True),
        sa.Column("issued_before", sa.DateTime(), nullable=False),
        sa.Column("revoked_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_revocation_event")),
        **TABLE_OPTIONS,
    )
    op.create_index("ix_revocation_event_audit_id", "revocation_event", ["audit_id"], unique=False)
    op.create_index(
        "ix_revocation_event_revoked_at", "revocation_event", ["revoked_at"], unique=False
    )
    op.create_index("ix_revocation_event_user_id", "revocation_event", ["user_id"], unique=False)
    op.create_table(
        "role",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("description", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_role")),
        sa.UniqueConstraint("name", name=op.f("uniq_role0name")),
        **TABLE_OPTIONS,
    )
    op.create_table(
        "service",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("type", sa.String(length=255), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("description", sa.Text(), nullable=True),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_service")),
        **TABLE_OPTIONS,
    )
    op.create_table(
        "assignment",
        sa.Column("type", sa.String(length=64), nullable=False),
        sa.Column("actor_id", sa.String(length=64), nullable=False),
        sa.Column("target_id", sa.String(length=64), nullable=False),
        sa.Column("role_id", sa.String(length=64), nullable=False),
        sa.ForeignKeyConstraint(
            ["role_id"], ["role.id"], name=op.f("fk_assignment_role_id_role"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint(
            "type", "actor_id", "target_id", "role_id", name=op.f("pk_assignment")
        ),
        **TABLE_OPTIONS,
    )
    op.create_index("ix_assignment_actor_id", "assignment", ["actor_id"], unique=False)
    op.create_index("ix_assignment_target_id", "assignment", ["target_id"], unique=False)
    op.create_table(
        "endpoint",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("service_id", sa.String(length=64), nullable=False),
        sa.Column("interface", sa.String(length=8), nullable=False),
        sa.Column("url", sa.Text(), nullable=False),
        sa.Column("region_id", sa.String(length=255), nullable=True),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(
            ["region_id"], ["region.id"], name=op.f("fk_endpoint_region_id_region")
        ),
        sa.ForeignKeyConstraint(
            ["service_id"],
            ["service.id"],
            name=op.f("fk_endpoint_service_id_service"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_endpoint")),
        **TABLE_OPTIONS,
    )
    op.create_table(
        "implied_role",
        sa.Column("prior_role_id", sa.String(length=64), nullable=False),
        sa.Column("implied_role_id", sa.String(length=64), nullable=False),
        sa.ForeignKeyConstraint(
            ["implied_role_id"],
            ["role.id"],
            name=op.f("fk_implied_role_implied_role_id_role"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["prior_role_id"],
            ["role.id"],
            name=op.f("fk_implied_role_prior_role_id_role"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("prior_role_id", "implied_role_id", name=op.f("pk_implied_role")),
        **TABLE_OPTIONS,
    )
    op.create_table(
        "project",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("domain_id", sa.String(length=64), nullable=False),
        sa.Column("description", sa.Text(), nullable=True),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(
            ["domain_id"], ["domain.id"], name=op.f("fk_project_domain_id_domain")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_project")),
        sa.UniqueConstraint("domain_id", "name", name=op.f("uniq_project0domain_id_name")),
        **TABLE_OPTIONS,
    )
    op.create_table(
        "user",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("domain_id", sa.String(length=64), nullable=False),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.Column("default_project_id", sa.String(length=64), nullable=True),
        sa.Column("description", sa.Text(), nullable=True),
        sa.Column("email", sa.String(length=255), nullable=True),
        sa.Column("password_hash", sa.String(length=255), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["domain_id"], ["domain.id"], name=op.f("fk_user_domain_id_domain")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_user")),
        sa.UniqueConstraint("domain_id", "name", name=op.f("uniq_user0domain_id_name")),
        **TABLE_OPTIONS,
    )


def downgrade() -> None:
    op.drop_table("user")
    op.drop_table("project")
    op.drop_table("implied_role")
    op.drop_table("endpoint")
    op.drop_table("assignment")
    op.drop_table("service")
    op.drop_table("role")
    op.drop_table("revocation_event")
    op.drop_table("region")
    op.drop_table("domain")
