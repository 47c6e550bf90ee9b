"""Query-string parameters as Nova's query schemas check them: unknown names refused
where a microversion made the schema strict, timestamps in ISO 8601."""

from __future__ import annotations

import datetime
from collections.abc import Iterable

from novalite.api.faults import HTTPFault
from novalite.api.request import ApiRequest


def only(req: ApiRequest, allowed: Iterable[str]) -> None:
    allowed = set(allowed)
    for key in req.query:
        if key not in allowed:
            raise HTTPFault(400, f"Additional properties are not allowed ('{key}' was "
                                 "unexpected)")


def only_from(req: ApiRequest, version: str, allowed: Iterable[str]) -> None:
    """Nova ignored unknown parameters until a microversion (2.75 for most APIs) made
    its query schemas strict; below it they are still ignored, as clients of that age
    expect."""
    if req.at_least(version):
        only(req, allowed)


def timestamp(req: ApiRequest, name: str) -> datetime.datetime | None:
    """The parameter as a naive UTC datetime (the database's), or None if absent."""
    value = req.query.get(name)
    return None if value is None else parse_timestamp(name, value)


def parse_timestamp(name: str, value: str) -> datetime.datetime:
    try:
        parsed = datetime.datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        raise HTTPFault(400, f"Invalid input for query parameters {name}. Value: {value}. "
                             f"'{value}' is not a 'date-time'") from None
    if parsed.tzinfo is not None:
        parsed = parsed.astimezone(datetime.UTC).replace(tzinfo=None)
    return parsed


def since_and_before(req: ApiRequest) -> tuple[datetime.datetime | None,
                                                datetime.datetime | None]:
    """`changes-since` and `changes-before`, the first no later than the second."""
    since, before = timestamp(req, "changes-since"), timestamp(req, "changes-before")
    if since is not None and before is not None and before < since:
        raise HTTPFault(400, "The value of changes-since must be less than or equal to "
                             "changes-before.")
    return since, before
