"""Turning request headers into a RequestContext.

`noauth2` (Nova's development strategy): the token `user:project` names the caller; a
token without a colon is both; no token at all is the admin user of the admin project.
The user `admin` gets the admin role. Identity replaces this with token validation.
"""

from __future__ import annotations

from starlette.requests import Request

from novalite.context import RequestContext


def noauth2(request: Request, request_id: str) -> RequestContext:
    token = request.headers.get("x-auth-token", "admin:admin")
    user_id, _, project_id = token.partition(":")
    project_id = project_id or user_id
    roles = ["admin", "member", "reader"] if user_id == "admin" else ["member", "reader"]
    return RequestContext(user_id=user_id, project_id=project_id, roles=roles,
                          request_id=request_id, is_admin=user_id == "admin",
                          auth_token=token)
