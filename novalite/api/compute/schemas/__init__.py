"""JSON schemas of compute request bodies, and Nova-style validation errors."""

from __future__ import annotations

from typing import Any

import jsonschema

from novalite.api.faults import HTTPFault


def validate(schema: dict, body: Any) -> None:
    """Raise a 400 worded as Nova words it: the field, the value and what is wrong."""
    if body is None:
        raise HTTPFault(400, "The request body is missing or not JSON.")
    validator = jsonschema.Draft4Validator(schema)
    error = jsonschema.exceptions.best_match(validator.iter_errors(body))
    if error is None:
        return
    if error.validator == "additionalProperties" and not error.path:
        raise HTTPFault(400, f"Additional properties are not allowed ({error.message})")
    field = "/".join(str(p) for p in error.path) or "request body"
    raise HTTPFault(400, f"Invalid input for field/attribute {field}. Value: "
                         f"{error.instance}. {error.message}")
