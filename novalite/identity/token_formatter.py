"""What a token carries, sealed with the Fernet keys: who, which project, how, until when.

Everything else in a token body (names, roles, catalog) is read from the database when
the token is validated, so a disabled user or a removed role takes effect at once.
"""

from __future__ import annotations

import base64
import dataclasses
import datetime
import json
import os

from cryptography.fernet import InvalidToken

from novalite.identity import fernet_keys

VERSION = 1


@dataclasses.dataclass(frozen=True)
class TokenPayload:
    user_id: str
    project_id: str | None
    methods: list[str]
    audit_ids: list[str]
    issued_at: datetime.datetime  # naive UTC, microseconds kept (revocation compares them)
    expires_at: datetime.datetime


def random_audit_id() -> str:
    """22 URL-safe characters, as Keystone's."""
    return base64.urlsafe_b64encode(os.urandom(16)).decode().rstrip("=")


def _epoch(when: datetime.datetime) -> float:
    return when.replace(tzinfo=datetime.UTC).timestamp()


def _from_epoch(value: float) -> datetime.datetime:
    return datetime.datetime.fromtimestamp(value, datetime.UTC).replace(tzinfo=None)


def pack(payload: TokenPayload) -> str:
    data = [VERSION, payload.user_id, payload.project_id, payload.methods,
            payload.audit_ids, _epoch(payload.issued_at), _epoch(payload.expires_at)]
    return fernet_keys.load().encrypt(json.dumps(data).encode()).decode()


def unpack(token: str) -> TokenPayload | None:
    """The payload of a token sealed by one of our keys, or None (forged, garbled, or
    signed by a key rotated out)."""
    try:
        data = json.loads(fernet_keys.load().decrypt(token.encode()))
        version, user_id, project_id, methods, audit_ids, issued, expires = data
    except (InvalidToken, ValueError, TypeError):
        return None
    if version != VERSION:
        return None
    return TokenPayload(user_id, project_id, methods, audit_ids, _from_epoch(issued),
                        _from_epoch(expires))
