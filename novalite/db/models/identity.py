"""Identity's tables (a Keystone v3 subset): domains, projects, users with their password
hashes, roles and the roles they imply, role assignments, the service catalog and
revocation events. Table and column names are Keystone's, so a Keystone operator reading
the database recognises them; domains keep their own table rather than Keystone's
projects-acting-as-domains, which novalite does not need.
"""

from __future__ import annotations

import datetime

from sqlalchemy import Boolean, DateTime, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from novalite.db.models import Base
from novalite.timeutils import utcnow


class Domain(Base):
    __tablename__ = "domain"
    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    name: Mapped[str] = mapped_column(String(64), unique=True)
    description: Mapped[str | None] = mapped_column(Text)
    enabled: Mapped[bool] = mapped_column(Boolean, default=True)


class Project(Base):
    __tablename__ = "project"
    __table_args__ = (UniqueConstraint("domain_id", "name"),)
    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    name: Mapped[str] = mapped_column(String(64))
    domain_id: Mapped[str] = mapped_column(ForeignKey("domain.id"))
    description: Mapped[str | None] = mapped_column(Text)
    enabled: Mapped[bool] = mapped_column(Boolean, default=True)


class User(Base):
    __tablename__ = "user"
    __table_args__ = (UniqueConstraint("domain_id", "name"),)
    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    name: Mapped[str] = mapped_column(String(255))
    domain_id: Mapped[str] = mapped_column(ForeignKey("domain.id"))
    enabled: Mapped[bool] = mapped_column(Boolean, default=True)
    default_project_id: Mapped[str | None] = mapped_column(String(64))
    description: Mapped[str | None] = mapped_column(Text)
    email: Mapped[str | None] = mapped_column(String(255))
    # "scrypt$n$r$p$<salt hex>$<hash hex>" (novalite.identity.password_hashing)
    password_hash: Mapped[str | None] = mapped_column(String(255))
    created_at: Mapped[datetime.datetime | None] = mapped_column(DateTime, default=utcnow)


class Role(Base):
    __tablename__ = "role"
    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    name: Mapped[str] = mapped_column(String(255), unique=True)
    description: Mapped[str | None] = mapped_column(Text)


class ImpliedRole(Base):
    """Holding `prior_role_id` grants `implied_role_id` too (admin implies manager...)."""

    __tablename__ = "implied_role"
    prior_role_id: Mapped[str] = mapped_column(
        ForeignKey("role.id", ondelete="CASCADE"), primary_key=True)
    implied_role_id: Mapped[str] = mapped_column(
        ForeignKey("role.id", ondelete="CASCADE"), primary_key=True)


class Assignment(Base):
    """A role an actor (user) holds on a target (project); Keystone's `UserProject` type."""

    __tablename__ = "assignment"
    __table_args__ = (Index("ix_assignment_actor_id", "actor_id"),
                      Index("ix_assignment_target_id", "target_id"))
    type: Mapped[str] = mapped_column(String(64), primary_key=True)
    actor_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    target_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    role_id: Mapped[str] = mapped_column(ForeignKey("role.id", ondelete="CASCADE"),
                                         primary_key=True)


class Region(Base):
    __tablename__ = "region"
    id: Mapped[str] = mapped_column(String(255), primary_key=True)
    description: Mapped[str] = mapped_column(String(255), default="")
    parent_region_id: Mapped[str | None] = mapped_column(String(255))


class CatalogService(Base):
    __tablename__ = "service"
    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    type: Mapped[str] = mapped_column(String(255))
    name: Mapped[str] = mapped_column(String(255))
    description: Mapped[str | None] = mapped_column(Text)
    enabled: Mapped[bool] = mapped_column(Boolean, default=True)


class Endpoint(Base):
    __tablename__ = "endpoint"
    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    service_id: Mapped[str] = mapped_column(ForeignKey("service.id", ondelete="CASCADE"))
    interface: Mapped[str] = mapped_column(String(8))
    url: Mapped[str] = mapped_column(Text)
    region_id: Mapped[str | None] = mapped_column(ForeignKey("region.id"))
    enabled: Mapped[bool] = mapped_column(Boolean, default=True)


class RevocationEvent(Base):
    """Tokens matching every non-null field and issued at or before `issued_before` are
    revoked: one token (audit_id) or all of a user's (user_id)."""

    __tablename__ = "revocation_event"
    __table_args__ = (Index("ix_revocation_event_revoked_at", "revoked_at"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    audit_id: Mapped[str | None] = mapped_column(String(32), index=True)
    user_id: Mapped[str | None] = mapped_column(String(64), index=True)
    project_id: Mapped[str | None] = mapped_column(String(64))
    issued_before: Mapped[datetime.datetime] = mapped_column(DateTime)
    revoked_at: Mapped[datetime.datetime] = mapped_column(DateTime, default=utcnow)
