"""Cinder's list query parameters: filters, `sort` (or `sort_key`/`sort_dir`), `limit`
(capped at [DEFAULT] osapi_max_limit), `marker`, and the `next` link of a full page.

A filter novalite does not know is a 400 naming it (Cinder refuses filters outside its
resource_filters the same way), never silently ignored."""

from __future__ import annotations

import ast
import dataclasses
import json
from collections.abc import Callable, Sequence
from typing import Any, TypeVar
from urllib.parse import urlencode

from novalite.api.request import ApiRequest
from novalite.conf import CONF
from novalite.volume import errors

T = TypeVar("T")
# query parameters that are not filters
PAGING = frozenset({"limit", "marker", "sort", "sort_key", "sort_dir", "all_tenants",
                    "with_count"})


@dataclasses.dataclass(frozen=True)
class Query:
    filters: dict[str, str]
    sort: list[tuple[str, str]]
    limit: int
    marker: str | None
    all_tenants: bool


def _limit(value: str | None) -> int:
    if value is None:
        return CONF.osapi_max_limit
    try:
        limit = int(value)
    except ValueError:
        raise errors.InvalidInput(reason="limit param must be an integer") from None
    if limit < 0:
        raise errors.InvalidInput(reason="limit param must be positive")
    return min(limit, CONF.osapi_max_limit)


def _sort(req: ApiRequest, keys: Sequence[str]) -> list[tuple[str, str]]:
    if "sort" in req.query:
        pairs = [item.partition(":")[::2] for item in req.query["sort"].split(",")]
    else:
        pairs = [(req.query.get("sort_key", "created_at"), req.query.get("sort_dir", ""))]
    sort = [(key.strip(), (direction.strip() or "desc").lower()) for key, direction in pairs]
    for key, direction in sort:
        if direction not in ("asc", "desc"):
            raise errors.InvalidInput(reason="Unknown sort direction, must be 'desc' or "
                                             "'asc'.")
        if key not in keys:
            raise errors.InvalidInput(reason=f"Invalid sort key {key}.")
    return sort


def parse(req: ApiRequest, filters: Sequence[str], sort_keys: Sequence[str]) -> Query:
    unknown = sorted(set(req.query) - PAGING - set(filters))
    if unknown:
        raise errors.InvalidInput(
            reason=f"Invalid filters {','.join(unknown)} are found in query options.")
    return Query({k: v for k, v in req.query.items() if k in filters},
                 _sort(req, sort_keys), _limit(req.query.get("limit")),
                 req.query.get("marker"),
                 req.query.get("all_tenants", "0").lower() in ("1", "true", "yes"))


def dict_filter(name: str, value: str) -> dict[str, str]:
    """A filter given as a dict ({"k": "v"}: JSON, or the Python literal cinderclient
    sends), refused when it is neither."""
    for parse_value in (json.loads, ast.literal_eval):
        try:
            parsed = parse_value(value)
        except (ValueError, SyntaxError):
            continue
        if isinstance(parsed, dict):
            return {str(k): str(v) for k, v in parsed.items()}
    raise errors.InvalidInput(reason=f"Invalid filter {name}: {value} is not a dict.")


def _ordered(items: list[T], sort: list[tuple[str, str]],
             value: Callable[[T, str], Any]) -> list[T]:
    for key, direction in reversed(sort):  # stable sorts, least significant key first
        items = sorted(items, key=lambda item: (value(item, key) is not None,
                                                value(item, key)),
                       reverse=direction == "desc")
    return items


def page(items: list[T], query: Query, value: Callable[[T, str], Any],
         not_found: Callable[[str], Exception]) -> list[T]:
    """The sorted items after the marker, at most `limit` of them."""
    ordered = _ordered(items, [*query.sort, ("id", "desc")], value)
    if query.marker is not None:
        ids = [value(item, "id") for item in ordered]
        if query.marker not in ids:
            raise not_found(query.marker)
        ordered = ordered[ids.index(query.marker) + 1:]
    return ordered[:query.limit]


def next_links(req: ApiRequest, collection: str, shown: list[dict[str, Any]],
               query: Query) -> dict[str, list[dict[str, str]]]:
    """`<collection>_links` with the next page's address when this page is full."""
    if not shown or len(shown) < query.limit:
        return {}
    params = {**dict(req.query.items()), "marker": shown[-1]["id"]}
    project = f"/{req.ctx.project_id}" if req.ctx.project_id else ""
    return {f"{collection}_links": [{
        "rel": "next",
        "href": f"{req.base_url}/v3{project}/{collection}?{urlencode(params)}"}]}
