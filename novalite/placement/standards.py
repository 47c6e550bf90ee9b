"""The standard resource classes (os-resource-classes) and traits (os-traits) as rows.

Inserted on first use per engine: a name already present is skipped, and two processes
inserting at once both succeed (insert-or-ignore), so start-up order does not matter.
After the first call per engine the check costs nothing.
"""

from __future__ import annotations

import threading
import weakref

import os_resource_classes
import os_traits
from sqlalchemy import Table, insert, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Engine

from novalite.db import session
from novalite.db.models import placement as models

_done: weakref.WeakSet[Engine] = weakref.WeakSet()
_lock = threading.Lock()


def _insert_ignore(dialect: str, table: Table):
    if dialect == "sqlite":
        return sqlite.insert(table).on_conflict_do_nothing()
    if dialect == "postgresql":
        return postgresql.insert(table).on_conflict_do_nothing()
    return insert(table).prefix_with("IGNORE")


def _sync(table: Table, names: list[str]) -> None:
    with session.writer() as s:
        present = set(s.scalars(select(table.c.name)))
        missing = [{"name": n} for n in names if n not in present]
        if missing:
            s.execute(_insert_ignore(s.get_bind().dialect.name, table), missing)


def ensure() -> None:
    engine = session.get_engine()
    if engine in _done:
        return
    with _lock:
        if engine in _done:
            return
        session.retry_on_deadlock(_sync)(models.ResourceClass.__table__,
                                         list(os_resource_classes.STANDARDS))
        session.retry_on_deadlock(_sync)(models.Trait.__table__, list(os_traits.get_traits()))
        _done.add(engine)
