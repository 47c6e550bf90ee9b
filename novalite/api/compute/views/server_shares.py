"""A server's share as Nova shows it: where it is exported from, and the mapping's own
uuid, only to admins (a user mounts it by its tag and needs neither); the list shows
no admin fields to anyone."""

from __future__ import annotations

from typing import Any

from novalite.db.api.share_mappings import ShareMapping


def listed(mapping: ShareMapping) -> dict[str, Any]:
    return {"share_id": mapping.share_id, "status": mapping.status, "tag": mapping.tag}


def shown(mapping: ShareMapping, is_admin: bool) -> dict[str, Any]:
    view = listed(mapping)
    if is_admin:
        view.update(export_location=mapping.export_location, uuid=mapping.uuid)
    return view
