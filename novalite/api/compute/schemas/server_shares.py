"""The body of POST /servers/{id}/shares (2.97), as Nova's schema: the Manila share's id,
and the tag the guest mounts it by (letters, digits and dashes; the share's id when
not given)."""

from __future__ import annotations

from typing import Any

create: dict[str, Any] = {
    "type": "object",
    "properties": {"share": {
        "type": "object",
        "properties": {
            "share_id": {"type": "string", "format": "uuid"},
            "tag": {"type": "string", "minLength": 1, "maxLength": 255,
                    "pattern": "^[a-zA-Z0-9-]*$"},
        },
        "required": ["share_id"],
        "additionalProperties": False,
    }},
    "required": ["share"],
    "additionalProperties": False,
}
