"""The image service's tables beyond `images` itself: who an image is shared with
(Glance's `image_members`) and its tags (`image_tags`). An image's bytes live in the file
store, named by the image id, so no locations table is needed."""

from __future__ import annotations

from sqlalchemy import ForeignKey, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from novalite.db.models import Base, TimestampMixin


class ImageMember(Base, TimestampMixin):
    __tablename__ = "image_members"
    __table_args__ = (UniqueConstraint("image_id", "member"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    image_id: Mapped[str] = mapped_column(ForeignKey("images.id"))
    member: Mapped[str] = mapped_column(String(255), index=True)
    status: Mapped[str] = mapped_column(String(20), default="pending")


class ImageTag(Base, TimestampMixin):
    __tablename__ = "image_tags"
    __table_args__ = (UniqueConstraint("image_id", "value"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    image_id: Mapped[str] = mapped_column(ForeignKey("images.id"))
    value: Mapped[str] = mapped_column(String(255))
