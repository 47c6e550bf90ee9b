"""Counting the SQL a piece of code runs: the tests that hold a read to a fixed number of
statements (however many rows it returns) use it."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from sqlalchemy import event

from novalite.db import session


@contextlib.contextmanager
def statements() -> Iterator[list[str]]:
    """The statements the engine runs while the block runs, in order."""
    seen: list[str] = []

    def count(_conn, _cursor, statement, *_args) -> None:
        seen.append(statement)

    engine = session.get_engine()
    event.listen(engine, "before_cursor_execute", count)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", count)
