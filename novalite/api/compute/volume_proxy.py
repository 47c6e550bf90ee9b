"""What Nova's volume and snapshot proxies (/os-volumes, /os-snapshots, up to 2.35)
share: the volume service reached as the caller, its answers turned into Nova's (a
volume service's 404 is Nova's, its 400 a 400 with its reason, its quota refusal Nova's
403), and Nova's `limit`/`offset` on lists."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from novalite.api import policy
from novalite.api.compute.networks import check_proxy_version
from novalite.api.faults import HTTPFault
from novalite.api.request import ApiRequest, ApiResponse
from novalite.clients import cinder
from novalite.conf import CONF

_NON_NEGATIVE = re.compile(r"^[0-9]+$")


def client(req: ApiRequest, rule: str) -> cinder.Client:
    """The volume service as the caller, once Nova's version and policy checks pass."""
    check_proxy_version(req)
    policy.authorize(req.ctx, f"os_compute_api:os-volumes:{rule}", req.ctx.project_id)
    return cinder.Client(req.ctx)


@contextmanager
def answers(not_found: str | None = None) -> Iterator[None]:
    """The volume service's refusals as Nova's: `not_found` for its 404 (else its own
    text: a thing the request names is missing)."""
    try:
        yield
    except cinder.CinderError as exc:
        if exc.status == 404:
            raise HTTPFault(404, not_found or exc.format_message()) from None
        if exc.status == 413:
            raise HTTPFault(403, exc.format_message()) from None
        if exc.status in (400, 403, 409):
            raise HTTPFault(400, exc.format_message()) from None
        raise


def limited(req: ApiRequest, items: list[Any]) -> list[Any]:
    """Nova's common.limited: `offset` items skipped, at most `limit` (0 or none: [api]
    max_limit) kept."""
    bounds = {}
    for name in ("limit", "offset"):
        value = req.query.get(name, "0")
        if not _NON_NEGATIVE.match(value):
            raise HTTPFault(400, f"Invalid input for query parameters {name}. Value: "
                                 f"{value}. '{value}' does not match '^[0-9]*$'")
        bounds[name] = int(value)
    limit = min(CONF.api.max_limit, bounds["limit"] or CONF.api.max_limit)
    return items[bounds["offset"]:bounds["offset"] + limit]


@dataclasses.dataclass(frozen=True)
class Collection:
    """One of the volume service's collections as Nova's proxy lists it."""

    name: str  # the volume service's and Nova's: "volumes", "snapshots"
    rules: str  # the prefix of its policy rules: "", "snapshots:"
    view: Callable[[dict[str, Any]], dict[str, Any]]

    def listed(self, req: ApiRequest, rule: str) -> ApiResponse:
        found = client(req, self.rules + rule).request("GET", f"/{self.name}/detail")
        return ApiResponse(200, {self.name: [self.view(item) for item in
                                             limited(req, found[self.name])]})
