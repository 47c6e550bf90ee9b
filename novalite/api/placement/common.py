"""What every placement handler does the same way: version gates, policy, the standard
rows, schema checks, uuids in paths, and the 1.15 cache headers."""

from __future__ import annotations

import datetime
import email.utils
import functools
import uuid as uuid_mod
from collections.abc import Callable
from typing import Any

import jsonschema

from novalite.api import policy
from novalite.api.placement.errors import error
from novalite.api.request import ApiRequest, ApiResponse
from novalite.placement import errors, standards

_FORMATS = jsonschema.FormatChecker()
_validators: dict[int, jsonschema.protocols.Validator] = {}


def _validator(schema: dict) -> jsonschema.protocols.Validator:
    """Schemas are module constants: build (and check) each validator once."""
    found = _validators.get(id(schema))
    if found is None:
        found = jsonschema.validators.validator_for(schema)(schema, format_checker=_FORMATS)
        _validators[id(schema)] = found
    return found


def handler(rule: str, since: str | None = None) -> Callable:
    """The fixed stack: unknown before `since` (404), then policy (403), then the work."""

    def wrap(func: Callable[[ApiRequest], ApiResponse]) -> Callable:
        @functools.wraps(func)
        def run(req: ApiRequest) -> ApiResponse:
            if since and not req.at_least(since):
                raise error(404, "The resource could not be found.")
            if not policy.check(req.ctx, rule):
                raise error(403, f"Policy does not allow {rule} to be performed.")
            standards.ensure()
            return func(req)

        return run

    return wrap


def validate(schema: dict, body: Any) -> dict:
    try:
        _validator(schema).validate(body)
    except jsonschema.ValidationError as exc:
        raise error(400, f"JSON does not validate: {exc.message}") from None
    return body


def query(req: ApiRequest, schema: dict) -> dict[str, str]:
    """The query string as a dict, each key at most once, checked against `schema`."""
    params = {}
    for key in req.query:
        values = req.query.getlist(key)
        if len(values) > 1:
            raise error(400, f"Invalid query string parameters: Query parameter {key!r} "
                             "may only be given once.", errors.ILLEGAL_DUPLICATE_QUERYPARAM)
        params[key] = values[0]
    return validate_query(params, schema)


def validate_query(params: dict[str, str], schema: dict) -> dict[str, str]:
    try:
        _validator(schema).validate(params)
    except jsonschema.ValidationError as exc:
        raise error(400, f"Invalid query string parameters: {exc.message}") from None
    return params


def normal_uuid(value: str, what: str = "uuid") -> str:
    try:
        return str(uuid_mod.UUID(value))
    except ValueError:
        raise error(400, f"Malformed {what}: {value}") from None


def cached(req: ApiRequest, response: ApiResponse,
           when: datetime.datetime | None = None) -> ApiResponse:
    """From 1.15: last-modified (the resource's own time, else now) and no-cache."""
    if req.at_least("1.15"):
        moment = (when.replace(tzinfo=datetime.UTC) if when
                  else datetime.datetime.now(datetime.UTC))
        response.headers["last-modified"] = email.utils.format_datetime(moment, usegmt=True)
        response.headers["cache-control"] = "no-cache"
    return response


def latest(*moments: datetime.datetime | None) -> datetime.datetime | None:
    found = [m for m in moments if m is not None]
    return max(found) if found else None
