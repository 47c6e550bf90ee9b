"""The volume service's tables, by Cinder's names: volumes, snapshots, volume types with
their extra specs, per-project quotas (`volume_quotas`: Nova's `quotas` has the name),
the user messages that say why an asynchronous request failed, and the attachments of
volumes to servers (`volume_attachment`).

A volume's or snapshot's metadata is a JSON column of its row (Cinder keeps metadata
tables): it is only ever read and written whole with its volume. Rows are deleted, not soft-deleted:
nothing reads a deleted volume back.
"""

from __future__ import annotations

import datetime

from sqlalchemy import JSON, Boolean, DateTime, ForeignKey, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from novalite.db.models import Base, TimestampMixin


class VolumeType(Base, TimestampMixin):
    __tablename__ = "volume_types"
    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    name: Mapped[str] = mapped_column(String(255), unique=True)
    description: Mapped[str | None] = mapped_column(String(255))
    is_public: Mapped[bool] = mapped_column(Boolean, default=True)


class VolumeTypeExtraSpec(Base, TimestampMixin):
    __tablename__ = "volume_type_extra_specs"
    __table_args__ = (UniqueConstraint("volume_type_id", "key"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    volume_type_id: Mapped[str] = mapped_column(ForeignKey("volume_types.id"))
    key: Mapped[str] = mapped_column(String(255))
    value: Mapped[str] = mapped_column(String(255))


class Volume(Base, TimestampMixin):
    __tablename__ = "volumes"
    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    project_id: Mapped[str] = mapped_column(String(255), index=True)
    user_id: Mapped[str | None] = mapped_column(String(255))
    display_name: Mapped[str | None] = mapped_column(String(255))
    display_description: Mapped[str | None] = mapped_column(String(255))
    size: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(32))
    availability_zone: Mapped[str] = mapped_column(String(255))
    host: Mapped[str | None] = mapped_column(String(255))
    volume_type_id: Mapped[str] = mapped_column(ForeignKey("volume_types.id"))
    snapshot_id: Mapped[str | None] = mapped_column(String(36))
    source_volid: Mapped[str | None] = mapped_column(String(36))
    image_id: Mapped[str | None] = mapped_column(String(36))
    bootable: Mapped[bool] = mapped_column(Boolean, default=False)
    volume_metadata: Mapped[dict] = mapped_column(JSON, default=dict)


class Snapshot(Base, TimestampMixin):
    __tablename__ = "snapshots"
    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    project_id: Mapped[str] = mapped_column(String(255), index=True)
    user_id: Mapped[str | None] = mapped_column(String(255))
    volume_id: Mapped[str] = mapped_column(String(36), index=True)
    volume_size: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(32))
    progress: Mapped[str | None] = mapped_column(String(255))
    display_name: Mapped[str | None] = mapped_column(String(255))
    display_description: Mapped[str | None] = mapped_column(String(255))
    snapshot_metadata: Mapped[dict] = mapped_column(JSON, default=dict)


class VolumeQuota(Base):
    __tablename__ = "volume_quotas"
    __table_args__ = (UniqueConstraint("project_id", "resource"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    project_id: Mapped[str] = mapped_column(String(255))
    resource: Mapped[str] = mapped_column(String(255))
    hard_limit: Mapped[int] = mapped_column(Integer)


class Message(Base):
    __tablename__ = "messages"
    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    project_id: Mapped[str] = mapped_column(String(255), index=True)
    request_id: Mapped[str | None] = mapped_column(String(255))
    resource_type: Mapped[str] = mapped_column(String(255))
    resource_uuid: Mapped[str] = mapped_column(String(36), index=True)
    event_id: Mapped[str] = mapped_column(String(255))
    message_level: Mapped[str] = mapped_column(String(255))
    action_id: Mapped[str] = mapped_column(String(10))
    detail_id: Mapped[str] = mapped_column(String(10))
    created_at: Mapped[datetime.datetime] = mapped_column(DateTime)
    expires_at: Mapped[datetime.datetime] = mapped_column(DateTime)


class VolumeAttachment(Base, TimestampMixin):
    """One consumer's use of a volume: reserved, then connected (the connector the
    consumer gave, the connection the manager made for it) and attached. A detached
    attachment's row is deleted."""

    __tablename__ = "volume_attachment"
    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    volume_id: Mapped[str] = mapped_column(ForeignKey("volumes.id"), index=True)
    instance_uuid: Mapped[str | None] = mapped_column(String(36), index=True)
    attached_host: Mapped[str | None] = mapped_column(String(255))
    mountpoint: Mapped[str | None] = mapped_column(String(255))
    attach_time: Mapped[datetime.datetime | None] = mapped_column(DateTime)
    attach_mode: Mapped[str] = mapped_column(String(36))
    attach_status: Mapped[str] = mapped_column(String(255))
    connector: Mapped[dict | None] = mapped_column(JSON)
    connection_info: Mapped[dict | None] = mapped_column(JSON)
