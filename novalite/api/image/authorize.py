"""Policy checks of the image API, refused with Glance's 403 text."""

from __future__ import annotations

from novalite.api import policy
from novalite.context import RequestContext
from novalite.image import errors


def authorize(ctx: RequestContext, rule: str, target_project: str | None = None) -> None:
    if not policy.check(ctx, rule, target_project):
        raise errors.Forbidden(action=rule)
