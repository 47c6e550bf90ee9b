"""Bodies of POST /flavors and (2.55) PUT /flavors/{id}: Nova's schemas.

Nova's validator also applies `minimum`/`maximum` to numeric strings; novalite's does not,
so novalite.compute.flavors.create re-checks string numbers and answers as Nova does.
"""

from __future__ import annotations

import copy
from typing import Any

from novalite.api.compute.schemas.formats import BOOLEAN
from novalite.compute.flavors import MAX_INT, SQL_SP_FLOAT_MAX

_name = {"type": "string", "format": "name", "minLength": 1, "maxLength": 255}
_positive = {"type": ["integer", "string"], "pattern": "^[0-9]+$", "minimum": 1,
             "maximum": MAX_INT}
_non_negative = {**_positive, "minimum": 0}
# 65535: the TEXT column; printable characters (no control characters, not even newline)
_description = {"type": ["string", "null"], "minLength": 0, "maxLength": 65535,
                "pattern": r"^[^\x00-\x1f\x7f-\x9f\u2028\u2029]*$"}

create: dict[str, Any] = {
    "type": "object",
    "properties": {
        "flavor": {
            "type": "object",
            "properties": {
                "name": _name,
                "id": {"type": ["string", "number", "null"], "minLength": 1,
                       "maxLength": 255, "pattern": "^(?! )[a-zA-Z0-9. _-]+(?<! )$"},
                "ram": _positive,
                "vcpus": _positive,
                "disk": _non_negative,
                "OS-FLV-EXT-DATA:ephemeral": _non_negative,
                "swap": _non_negative,
                # a positive float: anything above 0 (draft 4 spells it this way)
                "rxtx_factor": {"type": ["number", "string"],
                                "pattern": r"^[0-9]+(\.[0-9]+)?$",
                                "minimum": 0, "exclusiveMinimum": True,
                                "maximum": SQL_SP_FLOAT_MAX},
                "os-flavor-access:is_public": BOOLEAN,
            },
            # `id` stays optional: absent or null asks for a generated UUID
            "required": ["name", "ram", "vcpus", "disk"],
            "additionalProperties": False,
        },
    },
    "required": ["flavor"],
    "additionalProperties": False,
}

update = {
    "type": "object",
    "properties": {
        "flavor": {
            "type": "object",
            "properties": {"description": _description},
            "required": ["description"],
            "additionalProperties": False,
        },
    },
    "required": ["flavor"],
    "additionalProperties": False,
}


def create_for(version: tuple[int, int]) -> dict:
    """2.55 adds `description`."""
    if version < (2, 55):
        return create
    body = copy.deepcopy(create)
    body["properties"]["flavor"]["properties"]["description"] = _description
    return body
