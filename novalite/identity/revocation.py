"""Revocation events: one token (by audit id), or every token a user held until now."""

from __future__ import annotations

from sqlalchemy import or_, select

from novalite.db.models import identity as m
from novalite.db.session import reader, writer
from novalite.identity import token_cache
from novalite.identity.token_formatter import TokenPayload
from novalite.timeutils import utcnow


def _add(**match: str) -> None:
    with writer() as s:
        s.add(m.RevocationEvent(issued_before=utcnow(), **match))
    token_cache.clear()


def revoke_audit_id(audit_id: str) -> None:
    _add(audit_id=audit_id)


def revoke_user(user_id: str) -> None:
    _add(user_id=user_id)


def is_revoked(payload: TokenPayload) -> bool:
    with reader() as s:
        query = select(m.RevocationEvent.id).where(
            m.RevocationEvent.issued_before >= payload.issued_at,
            or_(m.RevocationEvent.audit_id.in_(payload.audit_ids),
                m.RevocationEvent.user_id == payload.user_id)).limit(1)
        return s.execute(query).first() is not None
