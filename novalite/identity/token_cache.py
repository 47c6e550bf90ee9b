"""Recently validated tokens, so that every API request does not re-read the database.

Any identity write in this process (revocation, a user or project disabled or deleted, a
role removed) clears it; other processes see such changes after
[keystone_authtoken] token_cache_time.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from novalite.conf import CONF

_lock = threading.Lock()
_entries: dict[str, tuple[float, Any]] = {}
MAX_ENTRIES = 10000


def get(token: str) -> Any | None:
    entry = _entries.get(token)
    if entry is None or entry[0] < time.monotonic():
        return None
    return entry[1]


def put(token: str, value: Any) -> None:
    ttl = CONF.keystone_authtoken.token_cache_time
    if ttl <= 0:
        return
    with _lock:
        if len(_entries) >= MAX_ENTRIES:
            _entries.clear()
        _entries[token] = (time.monotonic() + ttl, value)


def clear() -> None:
    with _lock:
        _entries.clear()
