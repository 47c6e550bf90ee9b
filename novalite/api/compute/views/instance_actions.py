"""Instance action views: `updated_at` from 2.58; events (for admins, or for everyone
from 2.51) with the traceback and, from 2.62, the host for admins, the hostId for all,
and from 2.84 the details for those the policy allows."""

from __future__ import annotations

import dataclasses
import datetime
from typing import Any

from novalite.api.compute.views.servers import host_id

_KEYS = ("action", "instance_uuid", "request_id", "user_id", "project_id", "start_time",
         "message")


def _time(value: datetime.datetime | None) -> str | None:
    """As Nova serialises these datetimes: microseconds, no zone."""
    return value.strftime("%Y-%m-%dT%H:%M:%S.%f") if value else None


def action(raw: dict[str, Any], version: tuple[int, int]) -> dict[str, Any]:
    body = {key: raw[key] for key in _KEYS}
    body["start_time"] = _time(raw["start_time"])
    if version >= (2, 58):
        body["updated_at"] = _time(raw["updated_at"])
    return body


@dataclasses.dataclass
class EventOptions:
    project_id: str
    traceback: bool = False
    host: bool = False
    host_id: bool = False
    details: bool = False


def event(raw: dict[str, Any], opts: EventOptions) -> dict[str, Any]:
    body = {"event": raw["event"], "start_time": _time(raw["start_time"]),
            "finish_time": _time(raw["finish_time"]), "result": raw["result"]}
    if opts.traceback:
        body["traceback"] = raw["traceback"]
    if opts.host:
        body["host"] = raw["host"] or ""
    if opts.host_id:
        body["hostId"] = host_id(opts.project_id, raw["host"])
    if opts.details:
        body["details"] = raw["details"]
    return body
