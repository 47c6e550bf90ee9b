"""Is a service up? A service is up when its last heartbeat is within service_down_time."""

from __future__ import annotations

import datetime

from novalite.conf import CONF
from novalite.objects.service import Service
from novalite.timeutils import utcnow


def service_is_up(service: Service, now: datetime.datetime | None = None) -> bool:
    if service.forced_down:
        return False
    last = service.last_seen_up or service.updated_at or service.created_at
    if last is None:
        return False
    elapsed = ((now or utcnow()) - last).total_seconds()
    down_after: float = CONF.service_down_time
    return abs(elapsed) <= down_after
