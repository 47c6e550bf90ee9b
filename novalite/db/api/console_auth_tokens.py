"""Remote console tokens (Nova's ConsoleAuthToken): made by the API when it hands out a
console URL, checked by the console proxy and by GET /os-console-auth-tokens/{token}.

Only the token's SHA-256 is stored, as Nova does: the database never holds what would
open a console. A token is good until it expires and only while its server exists;
expired rows are swept whenever a new token is made."""

from __future__ import annotations

import dataclasses
import hashlib
import secrets
import time

from sqlalchemy import delete, select

from novalite.db import models
from novalite.db.session import reader, retry_on_deadlock, run_dml, writer


@dataclasses.dataclass(frozen=True)
class ConsoleAuth:
    console_type: str  # novnc, serial
    host: str
    port: int
    internal_access_path: str | None
    instance_uuid: str
    expires: int  # UNIX time


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@retry_on_deadlock
def authorize(console_type: str, host: str, port: int, internal_access_path: str | None,
              instance_uuid: str, ttl: int) -> str:
    """A new token for this console, valid for `ttl` seconds."""
    token = secrets.token_urlsafe(32)
    now = int(time.time())
    with writer() as s:
        run_dml(s, delete(models.ConsoleAuthToken)
                .where(models.ConsoleAuthToken.expires <= now))
        s.add(models.ConsoleAuthToken(
            token_hash=_hash(token), console_type=console_type, host=host, port=port,
            internal_access_path=internal_access_path, instance_uuid=instance_uuid,
            expires=now + ttl))
    return token


def validate(token: str) -> ConsoleAuth | None:
    """What `token` opens, or None: unknown, expired, or its server deleted."""
    with reader() as s:
        row = s.execute(
            select(models.ConsoleAuthToken)
            .join(models.Instance,
                  models.Instance.uuid == models.ConsoleAuthToken.instance_uuid)
            .where(models.ConsoleAuthToken.token_hash == _hash(token),
                   models.ConsoleAuthToken.expires > int(time.time()),
                   models.Instance.deleted == 0)).scalar_one_or_none()
        if row is None:
            return None
        return ConsoleAuth(row.console_type, row.host, row.port, row.internal_access_path,
                           row.instance_uuid, row.expires)
