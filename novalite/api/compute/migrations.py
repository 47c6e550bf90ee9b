"""`GET /os-migrations` (admin): every resize and migration, newest first, with Nova's
filters per microversion: host, status, instance_uuid, source_compute, migration_type and
hidden; 2.59 paging (limit, marker) and changes-since; 2.66 changes-before; 2.80 user_id
and project_id."""

from __future__ import annotations

from typing import Any

from novalite import exception
from novalite.api import policy
from novalite.api.compute import paging, query
from novalite.api.compute.views import migrations as view
from novalite.api.faults import HTTPFault
from novalite.api.request import ApiRequest, ApiResponse
from novalite.db.api import migrations
from novalite.strutils import parse_bool

_FILTERS = ("host", "status", "instance_uuid", "source_compute", "migration_type")
_PAGING = ("limit", "marker", "changes-since")


def _allowed(req: ApiRequest) -> tuple[str, ...] | None:
    """The query parameters of this microversion (None: any, as Nova before 2.59)."""
    if not req.at_least("2.59"):
        return None
    allowed: tuple[str, ...] = (*_FILTERS, "hidden", *_PAGING)
    if req.at_least("2.66"):
        allowed += ("changes-before",)
    if req.at_least("2.80"):
        allowed += ("user_id", "project_id")
    return allowed


def _filters(req: ApiRequest) -> dict[str, Any]:
    names = _FILTERS + (("user_id", "project_id") if req.at_least("2.80") else ())
    found: dict[str, Any] = {k: req.query[k] for k in names if k in req.query}
    hidden = parse_bool(req.query.get("hidden", "0"))
    if hidden is None:
        raise HTTPFault(400, f"Invalid input for query parameters hidden. Value: "
                             f"{req.query['hidden']}.")
    found["hidden"] = hidden
    return found


def index(req: ApiRequest) -> ApiResponse:
    policy.authorize(req.ctx, "os_compute_api:os-migrations:index")
    allowed = _allowed(req)
    if allowed is not None:
        query.only(req, allowed)
    limit, marker, since, before = None, None, None, None
    if req.at_least("2.59"):
        limit, marker = paging.limit_and_marker(req)
        since, before = query.since_and_before(req)
    try:
        rows = migrations.migrations_list(_filters(req), limit, marker, since, before)
    except exception.MarkerNotFound as exc:
        raise HTTPFault(400, exc.format_message()) from None
    body: dict[str, Any] = {"migrations": [view.migration(req, row) for row in rows]}
    if req.at_least("2.59"):
        next_links = paging.next_links(req, "os-migrations", body["migrations"], "uuid")
        if next_links:
            body["migrations_links"] = next_links
    return ApiResponse(200, body)
