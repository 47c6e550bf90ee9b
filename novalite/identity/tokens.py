"""Issuing, validating and revoking tokens.

A token is valid while it is unexpired, sealed by a key of the repository, not revoked,
and its user, the user's domain and its project (if scoped) still exist and are enabled,
with at least one role on that project.
"""

from __future__ import annotations

import dataclasses
import datetime

from novalite.conf import CONF
from novalite.identity import (
    exception,
    resource,
    revocation,
    roles,
    token_cache,
    token_formatter,
    users,
)
from novalite.identity.token_formatter import TokenPayload
from novalite.timeutils import utcnow


@dataclasses.dataclass(frozen=True)
class Token:
    """A validated token: the payload, with what it says read from the database."""

    payload: TokenPayload
    user: dict
    user_domain: dict
    project: dict | None = None
    project_domain: dict | None = None
    roles: list[dict] = dataclasses.field(default_factory=list)

    @property
    def role_names(self) -> list[str]:
        return [r["name"] for r in self.roles]


def issue(user_id: str, project_id: str | None, methods: list[str]) -> tuple[str, Token]:
    """A new token for an authenticated user; 401 if the scope is not allowed."""
    now = utcnow()
    payload = TokenPayload(
        user_id=user_id, project_id=project_id, methods=methods,
        audit_ids=[token_formatter.random_audit_id()], issued_at=now,
        expires_at=now + datetime.timedelta(seconds=CONF.token.expiration))
    token = _load(payload)
    return token_formatter.pack(payload), token


def _load(payload: TokenPayload) -> Token:
    try:
        user = users.get_user(payload.user_id)
        user_domain = resource.get_domain(user["domain_id"])
    except exception.NotFound:
        raise exception.Unauthorized() from None
    if not user["enabled"] or not user_domain["enabled"]:
        raise exception.Unauthorized()
    if payload.project_id is None:
        return Token(payload, user, user_domain)
    try:
        project = resource.get_project(payload.project_id)
        project_domain = resource.get_domain(project["domain_id"])
    except exception.NotFound:
        raise exception.Unauthorized() from None
    held = roles.effective_roles(user["id"], project["id"])
    if not project["enabled"] or not project_domain["enabled"] or not held:
        raise exception.Unauthorized()
    return Token(payload, user, user_domain, project, project_domain, held)


def validate(token_id: str) -> Token:
    """The token's content; 401 (Keystone's text) when it is not valid, for any reason."""
    cached = token_cache.get(token_id)
    if cached is not None and cached.payload.expires_at > utcnow():
        return cached
    payload = token_formatter.unpack(token_id)
    if payload is None or payload.expires_at <= utcnow() or revocation.is_revoked(payload):
        raise exception.Unauthorized()
    token = _load(payload)
    token_cache.put(token_id, token)
    return token


def revoke(token_id: str) -> None:
    token = validate(token_id)
    revocation.revoke_audit_id(token.payload.audit_ids[0])
