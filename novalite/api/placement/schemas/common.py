"""Patterns shared by placement's schemas (upstream's, so the same names pass)."""

from __future__ import annotations

UUID_PATTERN = "^[0-9a-fA-F-]{36}$"
RC_PATTERN = "^[A-Z0-9_]+$"
CUSTOM_PATTERN = "^CUSTOM_[A-Z0-9_]+$"
CONSUMER_TYPE_PATTERN = RC_PATTERN
CONSUMER_TYPE_GET_PATTERN = f"{RC_PATTERN}|^all|^unknown$"
GROUP_PATTERN = "[a-zA-Z0-9_-]{1,64}"
MAX_INT = 2147483647
SQL_SP_FLOAT_MAX = 3.40282e38


def uuid() -> dict:
    return {"type": "string", "format": "uuid"}


def name_255() -> dict:
    return {"type": "string", "minLength": 1, "maxLength": 255}


def extend(schema: dict, needs: tuple[str, ...] = (), **properties: dict) -> dict:
    """A copy of an object schema with more properties (and more of them required)."""
    return {**schema, "properties": {**schema["properties"], **properties},
            "required": [*schema.get("required", []), *needs]}
