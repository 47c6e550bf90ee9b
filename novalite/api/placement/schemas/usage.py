"""The GET /usages query string."""

from __future__ import annotations

from novalite.api.placement.schemas.common import CONSUMER_TYPE_GET_PATTERN, extend, name_255

QUERY_V1_9 = {
    "type": "object",
    "properties": {"project_id": name_255(), "user_id": name_255()},
    "required": ["project_id"],
    "additionalProperties": False,
}
QUERY_V1_38 = extend(QUERY_V1_9, consumer_type={**name_255(),
                                                "pattern": CONSUMER_TYPE_GET_PATTERN})
