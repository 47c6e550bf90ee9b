"""The request context: who is asking, for which project, under which request id.

It travels with every RPC message so that a compute host logs the same request id as the
API that accepted the request, and so that identity (arriving later) only has to fill in
the same fields.
"""

from __future__ import annotations

import contextvars
import dataclasses
import uuid
from typing import Any

from novalite import exception

_current: contextvars.ContextVar[RequestContext | None] = contextvars.ContextVar(
    "novalite_context", default=None
)


def generate_request_id() -> str:
    return f"req-{uuid.uuid4()}"


@dataclasses.dataclass
class RequestContext:
    user_id: str | None = None
    project_id: str | None = None
    roles: list[str] = dataclasses.field(default_factory=list)
    request_id: str = dataclasses.field(default_factory=generate_request_id)
    is_admin: bool = False
    global_request_id: str | None = None
    auth_token: str | None = None
    user_name: str | None = None
    project_name: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The fields that travel with RPC messages (never the token)."""
        return {name: getattr(self, name) for name in _WIRE_FIELDS}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RequestContext:
        return cls(**{k: v for k, v in data.items() if k in _WIRE_FIELDS})

    def require_project_id(self) -> str:
        """The project the request acts for; a request scoped to none may not act for
        one (403, never a row owned by project None)."""
        if self.project_id is None:
            raise exception.Forbidden()
        return self.project_id

    def require_user_id(self) -> str:
        """The user the request acts for, as require_project_id."""
        if self.user_id is None:
            raise exception.Forbidden()
        return self.user_id

    def elevated(self) -> RequestContext:
        """A copy with admin rights, for internal work done on a user's behalf."""
        roles = self.roles if "admin" in self.roles else [*self.roles, "admin"]
        return dataclasses.replace(self, is_admin=True, roles=roles)

    def activate(self) -> contextvars.Token:
        return _current.set(self)


_WIRE_FIELDS = tuple(f.name for f in dataclasses.fields(RequestContext) if f.name != "auth_token")


def get_admin_context(request_id: str | None = None) -> RequestContext:
    return RequestContext(
        is_admin=True, roles=["admin"], request_id=request_id or generate_request_id()
    )


def current() -> RequestContext | None:
    return _current.get()


def reset(token: contextvars.Token) -> None:
    _current.reset(token)
