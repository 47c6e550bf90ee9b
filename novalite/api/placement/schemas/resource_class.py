"""Body of POST /resource_classes and of PUT before 1.7."""

from __future__ import annotations

from novalite.api.placement.schemas.common import CUSTOM_PATTERN

POST = {
    "type": "object",
    "properties": {"name": {"type": "string", "pattern": CUSTOM_PATTERN, "maxLength": 255}},
    "required": ["name"],
    "additionalProperties": False,
}
PUT_V1_2 = POST
