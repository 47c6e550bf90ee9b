"""Bodies of POST/PUT /resource_providers and the GET query string."""

from __future__ import annotations

from typing import Any

from novalite.api.placement.schemas.common import extend, uuid

POST_V1_0: dict[str, Any] = {
    "type": "object",
    "properties": {"name": {"type": "string", "maxLength": 200}, "uuid": uuid()},
    "required": ["name"],
    "additionalProperties": False,
}
PUT_V1_0 = {**POST_V1_0, "properties": {"name": POST_V1_0["properties"]["name"]}}
_PARENT = {"anyOf": [uuid(), {"type": "null"}]}
POST_V1_14 = extend(POST_V1_0, parent_provider_uuid=_PARENT)
PUT_V1_14 = extend(PUT_V1_0, parent_provider_uuid=_PARENT)

QUERY_V1_0 = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "uuid": uuid()},
    "additionalProperties": False,
}
QUERY_V1_3 = extend(QUERY_V1_0, member_of={"type": "string"})
QUERY_V1_4 = extend(QUERY_V1_3, resources={"type": "string"})
QUERY_V1_14 = extend(QUERY_V1_4, in_tree=uuid())
QUERY_V1_18 = extend(QUERY_V1_14, required={"type": "string"})
