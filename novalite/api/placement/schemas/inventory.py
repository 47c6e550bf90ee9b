"""Bodies of the inventory writes (one class, or all of a provider's)."""

from __future__ import annotations

from novalite.api.placement.schemas.common import MAX_INT, RC_PATTERN, SQL_SP_FLOAT_MAX


def _int(minimum: int) -> dict:
    return {"type": "integer", "maximum": MAX_INT, "minimum": minimum}


_FIELDS = {
    "resource_provider_generation": {"type": "integer"},
    "total": _int(1),
    "reserved": _int(0),
    "min_unit": _int(1),
    "max_unit": _int(1),
    "step_size": _int(1),
    "allocation_ratio": {"type": "number", "maximum": SQL_SP_FLOAT_MAX},
}
PUT_ONE = {"type": "object", "properties": _FIELDS,
           "required": ["total", "resource_provider_generation"],
           "additionalProperties": False}
POST = {"type": "object",
        "properties": {**_FIELDS, "resource_class": {"type": "string",
                                                     "pattern": RC_PATTERN}},
        "required": ["total", "resource_class"], "additionalProperties": False}
_RECORD = {**PUT_ONE, "required": ["total"]}
PUT_ALL = {
    "type": "object",
    "properties": {
        "resource_provider_generation": {"type": "integer"},
        "inventories": {"type": "object", "patternProperties": {RC_PATTERN: _RECORD}},
    },
    "required": ["resource_provider_generation", "inventories"],
    "additionalProperties": False,
}
