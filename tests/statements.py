"""Counting the SQL a piece of code runs: the tests that hold a read to a fixed number of
statements (however many rows it returns) use it."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from sqlalchemy import event
from sqlalchemy.engine import Engine


@contextlib.contextmanager
def statements() -> Iterator[list[str]]:
    """The statements the engines run while the block runs, in order: reads' and, on
    SQLite, writes' (one engine of their own)."""
    seen: list[str] = []

    def count(_conn, _cursor, statement, *_args) -> None:
        seen.append(statement)

    event.listen(Engine, "before_cursor_execute", count)
    try:
        yield seen
    finally:
        event.remove(Engine, "before_cursor_execute", count)
