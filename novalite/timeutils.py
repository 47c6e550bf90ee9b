"""The one clock every layer reads: naive UTC datetimes, as the database columns store them.

It lives outside the database package so that services which never touch the database (the
compute manager, the scheduler's host table) can stamp times without importing the ORM.
"""

from __future__ import annotations

import datetime


def utcnow() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC).replace(tzinfo=None)
