"""Body of PUT /resource_providers/{uuid}/traits and the GET /traits query string."""

from __future__ import annotations

_TRAIT = {"type": "string", "minLength": 1, "maxLength": 255}
SET_PROVIDER_TRAITS = {
    "type": "object",
    "properties": {"traits": {"type": "array", "items": _TRAIT},
                   "resource_provider_generation": {"type": "integer"}},
    "required": ["traits", "resource_provider_generation"],
    "additionalProperties": False,
}
QUERY = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "associated": {"type": "string"}},
    "additionalProperties": False,
}
