"""Bodies of /flavors/{id}/os-extra_specs: Nova's schemas.

Values may be numbers (stored as strings); the handler checks a number's length, which
a schema cannot.
"""

from __future__ import annotations

KEY = "^[a-zA-Z0-9-_:. ]{1,255}$"

_specs = {
    "type": "object",
    "patternProperties": {KEY: {"type": ["string", "number"], "maxLength": 255}},
    "additionalProperties": False,
}

create = {
    "type": "object",
    "properties": {"extra_specs": _specs},
    "required": ["extra_specs"],
    "additionalProperties": False,
}

# PUT /os-extra_specs/{key}: exactly one spec, `{key: value}`
update = {**_specs, "minProperties": 1, "maxProperties": 1}
