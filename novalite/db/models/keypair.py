"""Key pairs: the SSH public keys (or x509 certificates) users register for their servers.

As in Nova's API database, a key pair belongs to a user (not a project), its name is
unique per user, and a delete removes the row (no soft delete).
"""

from __future__ import annotations

from sqlalchemy import Enum, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from novalite.db.models import Base, TimestampMixin


class KeyPair(Base, TimestampMixin):
    __tablename__ = "key_pairs"
    __table_args__ = (UniqueConstraint("user_id", "name"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(255))
    user_id: Mapped[str] = mapped_column(String(255))
    fingerprint: Mapped[str | None] = mapped_column(String(255))
    public_key: Mapped[str | None] = mapped_column(Text)
    type: Mapped[str] = mapped_column(Enum("ssh", "x509", name="keypair_types"),
                                      default="ssh", server_default="ssh")
