"""JSON schemas of compute request bodies, and Nova-style validation errors."""

from __future__ import annotations

from typing import Any

import jsonschema

from novalite.api.compute.schemas import formats
from novalite.api.faults import HTTPFault


def validate(schema: dict, body: Any) -> None:
    """Raise a 400 worded as Nova words it: the field, the value and what is wrong."""
    if body is None:
        raise HTTPFault(400, "The request body is missing or not JSON.")
    validator = jsonschema.Draft4Validator(schema, format_checker=formats.CHECKER)
    error = jsonschema.exceptions.best_match(validator.iter_errors(body))
    if error is None:
        return
    if isinstance(error.cause, formats.InvalidName):
        raise HTTPFault(400, str(error.cause))
    if not error.path:  # about the body as a whole: Nova gives the bare message
        raise HTTPFault(400, error.message)
    # Nova names the innermost field only ("name", not "server/name")
    raise HTTPFault(400, f"Invalid input for field/attribute {error.path[-1]}. Value: "
                         f"{error.instance}. {error.message}")
