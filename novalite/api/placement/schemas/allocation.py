"""Bodies of the allocation writes, as they grew: a list of providers (1.0), project and
user (1.8), a dict keyed by provider (1.12), several consumers (1.13), consumer
generations (1.28), mappings (1.34), consumer types (1.38)."""

from __future__ import annotations

from novalite.api.placement.schemas.common import (
    CONSUMER_TYPE_PATTERN,
    GROUP_PATTERN,
    RC_PATTERN,
    UUID_PATTERN,
    extend,
    name_255,
    uuid,
)

_RESOURCES = {
    "type": "object",
    "minProperties": 1,
    "patternProperties": {RC_PATTERN: {"type": "integer", "minimum": 1}},
    "additionalProperties": False,
}
PUT_V1_0 = {
    "type": "object",
    "properties": {"allocations": {
        "type": "array",
        "minItems": 1,
        "items": {
            "type": "object",
            "properties": {
                "resource_provider": {"type": "object", "properties": {"uuid": uuid()},
                                      "required": ["uuid"], "additionalProperties": False},
                "resources": _RESOURCES,
            },
            "required": ["resource_provider", "resources"],
            "additionalProperties": False,
        },
    }},
    "required": ["allocations"],
    "additionalProperties": False,
}
PUT_V1_8 = extend(PUT_V1_0, ("project_id", "user_id"), project_id=name_255(),
                  user_id=name_255())


def _by_provider(min_providers: int) -> dict:
    return {
        "type": "object",
        "minProperties": min_providers,
        "patternProperties": {UUID_PATTERN: {
            "type": "object",
            "properties": {"generation": {"type": "integer"}, "resources": _RESOURCES},
            "required": ["resources"],
            "additionalProperties": False,
        }},
        "additionalProperties": False,
    }


PUT_V1_12 = {
    "type": "object",
    "properties": {"allocations": _by_provider(1), "project_id": name_255(),
                   "user_id": name_255()},
    "required": ["allocations", "project_id", "user_id"],
    "additionalProperties": False,
}
_DELETABLE = extend(PUT_V1_12, allocations=_by_provider(0))
_GENERATION = {"type": ["integer", "null"]}
PUT_V1_28 = extend(_DELETABLE, ("consumer_generation",), consumer_generation=_GENERATION)
_MAPPINGS = {
    "type": "object",
    "minProperties": 1,
    "patternProperties": {GROUP_PATTERN: {"type": "array", "minItems": 1, "items": uuid()}},
}
PUT_V1_34 = extend(PUT_V1_28, mappings=_MAPPINGS)
PUT_V1_38 = extend(PUT_V1_34, ("consumer_type",),
                   consumer_type={**name_255(), "pattern": CONSUMER_TYPE_PATTERN})


def _many(per_consumer: dict) -> dict:
    return {"type": "object", "minProperties": 1, "additionalProperties": False,
            "patternProperties": {UUID_PATTERN: per_consumer}}


POST_V1_13 = _many(_DELETABLE)
POST_V1_28 = _many(PUT_V1_28)
POST_V1_34 = _many(PUT_V1_34)
POST_V1_38 = _many(PUT_V1_38)
