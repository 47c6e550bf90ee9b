"""The migrations table: one row per resize or cold migration (Nova's columns), the
record whose uuid holds the source host's placement allocation while the move is under
way."""

from __future__ import annotations

from sqlalchemy import Boolean, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from novalite.db.models import Base, SoftDeleteMixin, TimestampMixin


class Migration(Base, TimestampMixin, SoftDeleteMixin):
    __tablename__ = "migrations"
    __table_args__ = (
        Index("ix_migrations_instance_uuid_status", "instance_uuid", "status"),
        Index("ix_migrations_source_compute_dest_compute_status", "source_compute",
              "dest_compute", "status"),
        Index("ix_migrations_updated_at", "updated_at"),
    )
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    uuid: Mapped[str] = mapped_column(String(36), unique=True)
    source_compute: Mapped[str | None] = mapped_column(String(255))
    dest_compute: Mapped[str | None] = mapped_column(String(255))
    source_node: Mapped[str | None] = mapped_column(String(255))
    dest_node: Mapped[str | None] = mapped_column(String(255))
    dest_host: Mapped[str | None] = mapped_column(String(255))
    old_instance_type_id: Mapped[int | None] = mapped_column(Integer)
    new_instance_type_id: Mapped[int | None] = mapped_column(Integer)
    instance_uuid: Mapped[str | None] = mapped_column(String(36))
    status: Mapped[str | None] = mapped_column(String(255))
    migration_type: Mapped[str | None] = mapped_column(String(255))
    hidden: Mapped[bool] = mapped_column(Boolean, default=False)
    cross_cell_move: Mapped[bool] = mapped_column(Boolean, default=False)
    user_id: Mapped[str | None] = mapped_column(String(255))
    project_id: Mapped[str | None] = mapped_column(String(255))
