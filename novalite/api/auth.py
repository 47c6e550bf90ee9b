"""Turning request headers into a RequestContext.

`noauth2` (Nova's development strategy): the token `user:project` names the caller; a
token without a colon is both; no token at all is the admin user of the admin project.
The user `admin` gets the admin role, anyone else member and reader, unless an `X-Roles`
header lists the roles (to act as, say, a reader only).

`keystone` (the default): X-Auth-Token must be a valid token of novalite's identity
service, checked locally (same database and Fernet keys, briefly cached) as
keystonemiddleware would check it remotely. The context gets the token's user, project
and effective roles; a missing or invalid token is a 401 in the calling API's format.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from novalite.api.faults import HTTPFault
from novalite.conf import CONF
from novalite.context import RequestContext
from novalite.identity import exception as identity_exception
from novalite.identity import tokens


def noauth2(headers: Mapping[str, str], ctx: RequestContext) -> RequestContext:
    token = headers.get("x-auth-token", "admin:admin")
    user_id, _, project_id = token.partition(":")
    project_id = project_id or user_id
    roles = ["admin", "member", "reader"] if user_id == "admin" else ["member", "reader"]
    if headers.get("x-roles"):  # as keystonemiddleware passes them: "reader,..."
        roles = [r.strip() for r in headers["x-roles"].split(",") if r.strip()]
    return dataclasses.replace(ctx, user_id=user_id, project_id=project_id, roles=roles,
                               is_admin=user_id == "admin", auth_token=token)


def keystone(headers: Mapping[str, str], ctx: RequestContext) -> RequestContext:
    token_id = headers.get("x-auth-token")
    try:
        if not token_id:
            raise identity_exception.Unauthorized()
        token = tokens.validate(token_id)
    except identity_exception.Unauthorized as exc:
        raise HTTPFault(401, exc.format_message()) from None
    project = token.project or {}
    return dataclasses.replace(
        ctx, user_id=token.user["id"], user_name=token.user["name"],
        project_id=project.get("id"), project_name=project.get("name"),
        roles=token.role_names, is_admin="admin" in token.role_names, auth_token=token_id)


STRATEGIES = {"noauth2": noauth2, "keystone": keystone}


def authenticate(headers: Mapping[str, str], ctx: RequestContext) -> RequestContext:
    """The caller's identity from the request's `headers` (lower-case names) by `[api]
    auth_strategy`; `ctx` carries the request ids."""
    return STRATEGIES[CONF.api.auth_strategy](headers, ctx)
