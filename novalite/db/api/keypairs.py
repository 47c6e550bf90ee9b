"""Key pairs: per-user rows, unique by name, listed by name."""

from __future__ import annotations

from typing import Any

from sqlalchemy import delete, func, select
from sqlalchemy.exc import IntegrityError

from novalite import exception, timeutils
from novalite.db.models.keypair import KeyPair
from novalite.db.session import reader, retry_on_deadlock, run_dml, writer

_COLUMNS = ("id", "name", "user_id", "fingerprint", "public_key", "type", "created_at",
            "updated_at")


def _to_dict(row: KeyPair) -> dict[str, Any]:
    return {c: getattr(row, c) for c in _COLUMNS}


@retry_on_deadlock
def key_pair_create(user_id: str, name: str, public_key: str, fingerprint: str,
                    key_type: str = "ssh") -> dict[str, Any]:
    try:
        with writer() as s:
            row = KeyPair(user_id=user_id, name=name, public_key=public_key,
                          fingerprint=fingerprint, type=key_type, created_at=timeutils.utcnow())
            s.add(row)
            s.flush()
            return _to_dict(row)
    except IntegrityError:
        raise exception.KeyPairExists(key_name=name) from None


def key_pair_get(user_id: str, name: str) -> dict[str, Any]:
    with reader() as s:
        row = s.scalar(select(KeyPair).filter_by(user_id=user_id, name=name))
        if row is None:
            raise exception.KeypairNotFound(user_id=user_id, name=name)
        return _to_dict(row)


def key_pair_get_all_by_user(user_id: str, limit: int | None = None,
                             marker: str | None = None) -> list[dict[str, Any]]:
    """A page of the user's key pairs by name, after the one named `marker`."""
    query = select(KeyPair).filter_by(user_id=user_id).order_by(KeyPair.name, KeyPair.id)
    with reader() as s:
        if marker is not None:
            if s.scalar(select(KeyPair.id).filter_by(user_id=user_id, name=marker)) is None:
                raise exception.MarkerNotFound(marker=marker)
            query = query.where(KeyPair.name > marker)
        if limit is not None:
            query = query.limit(limit)
        return [_to_dict(r) for r in s.scalars(query)]


def key_pair_count_by_user(user_id: str) -> int:
    with reader() as s:
        return s.scalar(select(func.count(KeyPair.id)).filter_by(user_id=user_id)) or 0


@retry_on_deadlock
def key_pair_destroy(user_id: str, name: str) -> None:
    with writer() as s:
        result = run_dml(s, delete(KeyPair).filter_by(user_id=user_id, name=name))
        if not result.rowcount:
            raise exception.KeypairNotFound(user_id=user_id, name=name)
