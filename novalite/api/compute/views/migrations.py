"""Migration views: os-migrations per microversion (2.23 migration_type and links, 2.59
uuid, 2.80 user_id and project_id) and the in-progress migrations of one server."""

from __future__ import annotations

import datetime
from typing import Any

from novalite.api.compute.views import links
from novalite.api.request import ApiRequest

# Live migration statuses in which GET /servers/{id}/migrations/{id} shows one (Nova).
LIVE_IN_PROGRESS = ("queued", "preparing", "running", "post-migrating")
_FIELDS = ("id", "status", "instance_uuid", "source_node", "source_compute", "dest_node",
           "dest_compute", "dest_host", "old_instance_type_id", "new_instance_type_id")


def timestamp(value: datetime.datetime | None) -> str | None:
    """As Nova serialises a migration's times."""
    return value.strftime("%Y-%m-%dT%H:%M:%S.%f") if value else None


def migration(req: ApiRequest, row: dict[str, Any]) -> dict[str, Any]:
    view = {key: row[key] for key in _FIELDS}
    view["created_at"] = timestamp(row["created_at"])
    view["updated_at"] = timestamp(row["updated_at"])
    if req.at_least("2.23"):
        view["migration_type"] = row["migration_type"]
        if row["migration_type"] == "live-migration" and row["status"] in LIVE_IN_PROGRESS:
            view["links"] = links(req.base_url, f"servers/{row['instance_uuid']}/migrations",
                                  str(row["id"]))
    if req.at_least("2.59"):
        view["uuid"] = row["uuid"]
    if req.at_least("2.80"):
        view["user_id"], view["project_id"] = row["user_id"], row["project_id"]
    return view


def server_migration(req: ApiRequest, row: dict[str, Any]) -> dict[str, Any]:
    """A live migration under way, as GET /servers/{id}/migrations shows it (2.23)."""
    view = {key: row[key] for key in ("id", "status", "source_node", "source_compute",
                                      "dest_node", "dest_compute", "dest_host")}
    view.update(server_uuid=row["instance_uuid"], created_at=timestamp(row["created_at"]),
                updated_at=timestamp(row["updated_at"]), disk_processed_bytes=None,
                disk_remaining_bytes=None, disk_total_bytes=None,
                memory_processed_bytes=None, memory_remaining_bytes=None,
                memory_total_bytes=None)
    if req.at_least("2.59"):
        view["uuid"] = row["uuid"]
    if req.at_least("2.80"):
        view["user_id"], view["project_id"] = row["user_id"], row["project_id"]
    return view
