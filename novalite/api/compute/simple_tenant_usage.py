"""Handlers of /os-simple-tenant-usage: how many hours of vCPUs, RAM and disk each
project's servers ran between `start` and `end` (both default to now, as in Nova);
`detailed` lists the servers; from 2.40 the servers are paged (`limit`, `marker`)."""

from __future__ import annotations

import datetime
from typing import Any

from novalite import strutils, timeutils
from novalite.api import policy
from novalite.api.compute import paging
from novalite.api.faults import HTTPFault
from novalite.api.request import ApiRequest, ApiResponse
from novalite.db.api import instances

RULE = "os_compute_api:os-simple-tenant-usage:%s"
_FORMATS = ("%Y-%m-%dT%H:%M:%S", "%Y-%m-%dT%H:%M:%S.%f", "%Y-%m-%d %H:%M:%S.%f")


def _when(value: str | None) -> datetime.datetime:
    if value is None:
        return timeutils.utcnow()
    for fmt in _FORMATS:
        try:
            return datetime.datetime.strptime(value, fmt)
        except ValueError:
            continue
    raise HTTPFault(400, "Datetime is in invalid format")


def _period(req: ApiRequest) -> tuple[datetime.datetime, datetime.datetime]:
    start, end = _when(req.query.get("start")), _when(req.query.get("end"))
    if not start < end:
        raise HTTPFault(400, "Invalid start time. The start time cannot occur after the "
                             "end time.")
    return start, end


def _time(value: datetime.datetime | None) -> str | None:
    return value.isoformat() if value else None


def _server_usage(row: dict[str, Any], start: datetime.datetime, end: datetime.datetime,
                  now: datetime.datetime) -> dict[str, Any]:
    ran_from = max(row["launched_at"], start)
    ran_to = min(row["terminated_at"] or end, end)
    hours = max((ran_to - ran_from).total_seconds(), 0) / 3600.0
    flavor = ((row["flavor"] or {}).get("cur") or {}).get("name", "")
    stopped = row["terminated_at"]
    return {"instance_id": row["uuid"], "name": row["display_name"] or "",
            "hours": hours, "memory_mb": row["memory_mb"] or 0,
            "local_gb": (row["root_gb"] or 0) + (row["ephemeral_gb"] or 0),
            "vcpus": row["vcpus"] or 0, "tenant_id": row["project_id"], "flavor": flavor,
            "started_at": _time(row["launched_at"]), "ended_at": _time(stopped),
            "state": "terminated" if stopped else row["vm_state"],
            "uptime": int(((stopped or now) - row["launched_at"]).total_seconds())}


def _usages(rows: list[dict[str, Any]], start: datetime.datetime, end: datetime.datetime,
            detailed: bool) -> list[dict[str, Any]]:
    now = timeutils.utcnow()
    by_project: dict[str, dict[str, Any]] = {}
    for row in rows:
        server = _server_usage(row, start, end, now)
        usage = by_project.setdefault(row["project_id"], {
            "tenant_id": row["project_id"], "total_local_gb_usage": 0.0,
            "total_vcpus_usage": 0.0, "total_memory_mb_usage": 0.0, "total_hours": 0.0,
            "start": _time(start), "stop": _time(end), "server_usages": []})
        usage["total_hours"] += server["hours"]
        usage["total_vcpus_usage"] += server["hours"] * server["vcpus"]
        usage["total_memory_mb_usage"] += server["hours"] * server["memory_mb"]
        usage["total_local_gb_usage"] += server["hours"] * server["local_gb"]
        usage["server_usages"].append(server)
    if not detailed:
        for usage in by_project.values():
            del usage["server_usages"]
    return list(by_project.values())


def _paged(req: ApiRequest, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """2.40: a page of the servers (by uuid marker), the sums over that page, as Nova."""
    if not req.at_least("2.40"):
        return rows
    limit, marker = paging.limit_and_marker(req)
    start = 0
    if marker is not None:
        ids = [r["uuid"] for r in rows]
        if marker not in ids:
            raise HTTPFault(400, f"Marker {marker} could not be found.")
        start = ids.index(marker) + 1
    return rows[start:start + limit]


def _links(req: ApiRequest, path: str, rows: list[dict[str, Any]]) -> list[dict]:
    if not req.at_least("2.40"):
        return []
    return paging.next_links(req, path, [{"id": r["uuid"]} for r in rows], "id")


def index(req: ApiRequest) -> ApiResponse:
    policy.authorize(req.ctx, RULE % "list")
    start, end = _period(req)
    detailed = strutils.parse_bool(req.query.get("detailed") or "") is True
    rows = _paged(req, instances.instances_active_in_window(start, end))
    body: dict[str, Any] = {"tenant_usages": _usages(rows, start, end, detailed)}
    if links := _links(req, "os-simple-tenant-usage", rows):
        body["tenant_usages_links"] = links
    return ApiResponse(200, body)


def show(req: ApiRequest) -> ApiResponse:
    project_id = req.params["tenant_id"]
    policy.authorize(req.ctx, RULE % "show", project_id)
    start, end = _period(req)
    rows = _paged(req, instances.instances_active_in_window(start, end, project_id))
    found = _usages(rows, start, end, detailed=True)
    body: dict[str, Any] = {"tenant_usage": found[0] if found else {}}
    if links := _links(req, f"os-simple-tenant-usage/{project_id}", rows):
        body["tenant_usage_links"] = links
    return ApiResponse(200, body)
