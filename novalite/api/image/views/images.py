"""How Glance renders an image: additional properties at top level next to the base
attributes, links relative to the API root, times to the second with a Z."""

from __future__ import annotations

import datetime
from typing import Any

from novalite.image.record import ImageRecord

_ATTRIBUTES = ("name", "disk_format", "container_format", "visibility", "size",
               "virtual_size", "status", "checksum", "protected", "min_ram", "min_disk",
               "owner", "os_hidden", "os_hash_algo", "os_hash_value", "id", "tags")


def isotime(value: datetime.datetime | None) -> str | None:
    return value.strftime("%Y-%m-%dT%H:%M:%SZ") if value else None


def href(image_id: str, sub: str = "") -> str:
    return f"/v2/images/{image_id}" + (f"/{sub}" if sub else "")


def show(image: ImageRecord) -> dict[str, Any]:
    body: dict[str, Any] = dict(image.properties)
    body.update({key: getattr(image, key) for key in _ATTRIBUTES})
    body.update({"created_at": isotime(image.created_at),
                 "updated_at": isotime(image.updated_at or image.created_at),
                 "self": href(image.id), "file": href(image.id, "file"),
                 "schema": "/v2/schemas/image"})
    return body
