"""A running service (api, conductor, scheduler, compute) and its heartbeat."""

from __future__ import annotations

import datetime

from novalite.objects import base


@base.register
class Service(base.NovaliteObject):
    VERSION = "1.0"

    id: int
    uuid: str
    host: str
    binary: str
    topic: str | None = None
    report_count: int = 0
    disabled: bool = False
    disabled_reason: str | None = None
    forced_down: bool = False
    created_at: datetime.datetime | None = None
    updated_at: datetime.datetime | None = None
    last_seen_up: datetime.datetime | None = None
