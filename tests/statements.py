"""Counting the SQL a piece of code runs: the tests that hold a read to a fixed number of
statements (however many rows it returns) use it; and SQLite's plan for a statement, for
the tests that hold a read to an index."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlalchemy.sql import Executable


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


def sqlite_plan(engine: Engine, statement: Executable, values: dict[str, Any]) -> str:
    """SQLite's EXPLAIN QUERY PLAN of `statement` with `values`, its steps joined by
    " | " ("SEARCH t USING INDEX ix (c>?)", "SCAN t", ...)."""
    compiled = statement.compile(dialect=engine.dialect)
    params = compiled.construct_params(values)
    with engine.connect() as conn:
        return " | ".join(row[-1] for row in conn.exec_driver_sql(
            f"EXPLAIN QUERY PLAN {compiled}",
            tuple(params[name] for name in compiled.positiontup or ())))
