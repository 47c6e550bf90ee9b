"""The os-services view: integer ids before 2.53, uuids from then; `forced_down` from
2.11."""

from __future__ import annotations

import datetime
from typing import Any

from novalite.objects.service import Service
from novalite.service import liveness


def _timestamp(value: datetime.datetime | None) -> str | None:
    """As Nova serialises the record's datetime: microseconds, no zone."""
    return value.strftime("%Y-%m-%dT%H:%M:%S.%f") if value else None


def service(svc: Service, zone: str, version: tuple[int, int]) -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": svc.uuid if version >= (2, 53) else svc.id,
        "binary": svc.binary, "host": svc.host, "zone": zone,
        "status": "disabled" if svc.disabled else "enabled",
        "state": "up" if liveness.service_is_up(svc) else "down",
        "updated_at": _timestamp(svc.last_seen_up or svc.updated_at),
        "disabled_reason": svc.disabled_reason,
    }
    if version >= (2, 11):
        body["forced_down"] = svc.forced_down
    return body
