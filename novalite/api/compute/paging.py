"""Nova's paging of lists: `limit` (capped at [api] max_limit) and `marker` query
parameters, and a `next` link when a page came back full."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlencode

from novalite.api.faults import HTTPFault
from novalite.api.request import ApiRequest
from novalite.conf import CONF

_NON_NEGATIVE = re.compile(r"^[0-9]+$")


def limit_and_marker(req: ApiRequest) -> tuple[int, str | None]:
    value = req.query.get("limit")
    if value is not None and not _NON_NEGATIVE.match(value):
        raise HTTPFault(400, f"Invalid input for query parameters limit. Value: {value}. "
                             f"'{value}' does not match '^[0-9]*$'")
    limit = CONF.api.max_limit if value is None else min(int(value), CONF.api.max_limit)
    return limit, req.query.get("marker")


def next_links(req: ApiRequest, collection: str, items: list[dict[str, Any]],
               key: str) -> list[dict[str, str]]:
    """A link to the page after `items` when they fill the page, else none."""
    limit, _ = limit_and_marker(req)
    if not limit or len(items) != limit:
        return []
    params = dict(sorted(req.query.items()))
    params["marker"] = items[-1][key]
    return [{"rel": "next",
             "href": f"{req.base_url}/v2.1/{collection}?{urlencode(params)}"}]
