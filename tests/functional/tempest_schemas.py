"""Check a compute response as tempest's clients do: its strict per-microversion schema,
with tempest's format checker."""

from __future__ import annotations

import importlib
from typing import Any

from tempest.lib.common import jsonschema_validator


def check(response: Any, package: str, module: str, schema: str) -> Any:
    """`package` is tempest's microversion package (`v2_1`, `v2_53`, ...)."""
    found = importlib.import_module(f"tempest.lib.api_schema.response.compute.{package}."
                                    f"{module}")
    expected = getattr(found, schema)
    assert response.status_code in expected["status_code"], response.text
    body = response.json() if response.content else None
    if "response_body" in expected:
        jsonschema_validator.JSONSCHEMA_VALIDATOR(
            expected["response_body"],
            format_checker=jsonschema_validator.FORMAT_CHECKER).validate(body)
    return body
