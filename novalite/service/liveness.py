"""Is a service up? A service is up when its last heartbeat is within service_down_time."""

from __future__ import annotations

import datetime

from novalite.conf import CONF
from novalite.objects.service import Service
from novalite.timeutils import utcnow


def service_is_up(service: Service, now: datetime.datetime | None = None,
                  down_after: float | None = None) -> bool:
    """`down_after`: service_down_time, read once by a caller asking of thousands."""
    if service.forced_down:
        return False
    last = service.last_seen_up or service.updated_at or service.created_at
    if last is None:
        return False
    elapsed = ((now or utcnow()) - last).total_seconds()
    limit: float = CONF.service_down_time if down_after is None else down_after
    return abs(elapsed) <= limit
