"""Identity's policy checks: Keystone's rule names, Keystone's 403 text.

Admin may do everything; the owner exceptions (a user reading itself, its projects, its
own token) are decided here, by the caller's identity, before the rule is consulted.
"""

from __future__ import annotations

from novalite.api import policy
from novalite.context import RequestContext
from novalite.identity import exception


def enforce(ctx: RequestContext, rule: str, owner_user_id: str | None = None) -> None:
    if owner_user_id is not None and owner_user_id == ctx.user_id:
        return
    if not policy.check(ctx, rule):
        raise exception.Forbidden(action=rule)
