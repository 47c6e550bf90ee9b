"""Glance's `member` schema and the bodies of the members API."""

from __future__ import annotations

from typing import Any

MEMBER: dict[str, Any] = {
    "name": "member",
    "properties": {
        "created_at": {"type": "string", "description": "Date and time of image member "
                                                        "creation"},
        "image_id": {"type": "string", "description": "An identifier for the image"},
        "member_id": {"type": "string", "description": "An identifier for the image member "
                                                       "(tenantId)"},
        "schema": {"type": "string", "readOnly": True},
        "status": {"type": "string", "enum": ["pending", "accepted", "rejected"],
                   "description": "The status of this image member"},
        "updated_at": {"type": "string", "description": "Date and time of last "
                                                        "modification of image member"},
    },
}

MEMBERS: dict[str, Any] = {
    "name": "members",
    "properties": {"members": {"type": "array", "items": MEMBER},
                   "schema": {"type": "string"}},
    "links": [{"rel": "self", "href": "{self}"}, {"rel": "describedby", "href": "{schema}"}],
}
