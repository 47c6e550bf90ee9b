"""Nova's `instance_info_caches`: an instance's network info as the network service last
told it (novalite.objects.network_info), so server views never ask that service."""

from __future__ import annotations

from sqlalchemy import JSON, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from novalite.db.models import Base, TimestampMixin


class InstanceInfoCache(Base, TimestampMixin):
    __tablename__ = "instance_info_caches"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    instance_uuid: Mapped[str] = mapped_column(String(36), unique=True)
    network_info: Mapped[list] = mapped_column(JSON, default=list)
