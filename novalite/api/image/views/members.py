"""How Glance renders an image membership."""

from __future__ import annotations

from typing import Any

from novalite.api.image.views.images import isotime
from novalite.image.db import Member


def show(member: Member) -> dict[str, Any]:
    return {"created_at": isotime(member.created_at), "updated_at": isotime(member.updated_at),
            "image_id": member.image_id, "member_id": member.member_id,
            "status": member.status, "schema": "/v2/schemas/member"}
