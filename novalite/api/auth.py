"""Turning request headers into a RequestContext.

`noauth2` (Nova's development strategy): the token `user:project` names the caller; a
token without a colon is both; no token at all is the admin user of the admin project.
The user `admin` gets the admin role, anyone else member and reader, unless an `X-Roles`
header lists the roles (to act as, say, a reader only). Identity replaces this with token
validation.
"""

from __future__ import annotations

import dataclasses

from starlette.requests import Request

from novalite.conf import CONF
from novalite.context import RequestContext


def noauth2(request: Request, ctx: RequestContext) -> RequestContext:
    token = request.headers.get("x-auth-token", "admin:admin")
    user_id, _, project_id = token.partition(":")
    project_id = project_id or user_id
    roles = ["admin", "member", "reader"] if user_id == "admin" else ["member", "reader"]
    if request.headers.get("x-roles"):  # as keystonemiddleware passes them: "reader,..."
        roles = [r.strip() for r in request.headers["x-roles"].split(",") if r.strip()]
    return dataclasses.replace(ctx, user_id=user_id, project_id=project_id, roles=roles,
                               is_admin=user_id == "admin", auth_token=token)


STRATEGIES = {"noauth2": noauth2}


def authenticate(request: Request, ctx: RequestContext) -> RequestContext:
    """The caller's identity by `[api] auth_strategy`; `ctx` carries the request ids."""
    return STRATEGIES[CONF.api.auth_strategy](request, ctx)
