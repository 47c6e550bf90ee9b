"""Body of PUT /resource_providers/{uuid}/aggregates: a list, then (1.19) an object."""

from __future__ import annotations

from novalite.api.placement.schemas.common import uuid

PUT_V1_1 = {"type": "array", "items": uuid(), "uniqueItems": True}
PUT_V1_19 = {
    "type": "object",
    "properties": {"aggregates": PUT_V1_1, "resource_provider_generation": {"type": "integer"}},
    "required": ["aggregates", "resource_provider_generation"],
    "additionalProperties": False,
}
