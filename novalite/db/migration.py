"""Schema migrations: `novalite-manage db sync` and the all-in-one's start-up run these.

Alembic is driven from code (no alembic.ini to install or find): the migration scripts
ship inside the package and run on the engine novalite.db.session configures.

Several services may start together on an empty database (a deployment tool starting the
whole cloud at once), so db_sync holds a database-wide lock while it upgrades: the first
caller migrates, the others wait and then find nothing left to do.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from collections.abc import Iterator

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import text
from sqlalchemy.engine import URL, Connection, Engine
from sqlalchemy.exc import DBAPIError

from novalite.db import session

LOG = logging.getLogger(__name__)
SCRIPTS = os.path.join(os.path.dirname(__file__), "migrations")
LOCK_NAME = "novalite.db_sync"
_PG_LOCK_KEY = 0x6E6F76616C697465  # "novalite": a constant no other application picks
LOCK_TIMEOUT = 300  # seconds a second db_sync waits for the first (MariaDB needs a bound)
# alembic.context and alembic.op are process-wide proxies: one migration per process at once.
_in_process = threading.Lock()


def alembic_config(connection: Connection | None = None) -> Config:
    """Alembic's configuration built in code; with no connection, env.py opens the
    configured database (how a developer autogenerates a new revision)."""
    config = Config()
    config.set_main_option("script_location", SCRIPTS)
    if connection is not None:
        config.attributes["connection"] = connection
    return config


def _ensure_sqlite_directory(url: URL) -> None:
    """SQLite creates the file but not its directory; a fresh state_path has neither."""
    database = url.database
    if url.get_backend_name() != "sqlite" or not database or database == ":memory:" \
            or database.startswith("file:"):
        return
    os.makedirs(os.path.dirname(os.path.abspath(database)), exist_ok=True)


def _release(connection: Connection, sql: str, params: dict) -> None:
    """A session lock outlives an error; a connection that cannot release it must not go
    back to the pool holding it (every later db_sync would wait on it)."""
    try:
        connection.rollback()
        connection.execute(text(sql), params)
        connection.commit()
    except DBAPIError:
        connection.invalidate()
        raise


@contextlib.contextmanager
def _exclusive(connection: Connection) -> Iterator[None]:
    """Session-level, so it is held until after the upgrade commits (a lock released at
    the end of the transaction would let the next caller read the old version)."""
    dialect = connection.dialect.name
    if dialect == "postgresql":
        connection.execute(text("SELECT pg_advisory_lock(:key)"), {"key": _PG_LOCK_KEY})
        connection.commit()
        try:
            yield
        finally:
            _release(connection, "SELECT pg_advisory_unlock(:key)", {"key": _PG_LOCK_KEY})
    elif dialect in ("mysql", "mariadb"):
        got = connection.execute(text("SELECT GET_LOCK(:name, :timeout)"),
                                 {"name": LOCK_NAME, "timeout": LOCK_TIMEOUT}).scalar()
        connection.commit()
        if got != 1:
            raise RuntimeError(f"Another db sync held the lock {LOCK_NAME!r} for more than "
                               f"{LOCK_TIMEOUT} seconds")
        try:
            yield
        finally:
            _release(connection, "SELECT RELEASE_LOCK(:name)", {"name": LOCK_NAME})
    else:
        yield  # SQLite: the writer transaction's BEGIN IMMEDIATE is the lock


@contextlib.contextmanager
def _sqlite_foreign_keys_off(connection: Connection) -> Iterator[None]:
    """Batch migrations rebuild a SQLite table by copy, drop and rename; with foreign keys
    enforced, dropping a referenced table fails (or empties its children). The pragma only
    works outside a transaction, so it goes straight to the driver; the integrity of the
    result is checked before commit instead."""
    if connection.dialect.name != "sqlite":
        yield
        return
    raw = connection.connection.driver_connection
    assert raw is not None, "an open SQLAlchemy connection has its driver's"
    raw.execute("PRAGMA foreign_keys=OFF")
    try:
        yield
    finally:
        raw.execute("PRAGMA foreign_keys=ON")


def _check_sqlite_foreign_keys(connection: Connection) -> None:
    if connection.dialect.name == "sqlite":
        broken = connection.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
        if broken:
            raise RuntimeError(f"Migration left rows with dangling foreign keys: {broken[:5]}")


def _migrate(engine: Engine, upgrade: bool, version: str) -> None:
    _ensure_sqlite_directory(engine.url)
    with _in_process, engine.connect() as connection, session.begins_immediate(connection), \
            _exclusive(connection), _sqlite_foreign_keys_off(connection), connection.begin():
        config = alembic_config(connection)
        if upgrade:
            command.upgrade(config, version)
        else:
            command.downgrade(config, version)
        _check_sqlite_foreign_keys(connection)


def db_sync(version: str = "head", engine: Engine | None = None) -> None:
    """Upgrade to `version`; a database already there is left untouched. Each migration
    applied logs one INFO line (see migrations/env.py)."""
    _migrate(engine or session.get_engine(), True, version)


def db_downgrade(version: str, engine: Engine | None = None) -> None:
    """Only for tests and development: a downgrade drops tables and their data."""
    _migrate(engine or session.get_engine(), False, version)


def revisions() -> list[str]:
    """Every revision the package ships, oldest first."""
    scripts = ScriptDirectory.from_config(alembic_config())
    return [script.revision for script in reversed(list(scripts.walk_revisions()))]


def head_revision() -> str:
    """The revision `db sync` brings a database to."""
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    if head is None:
        raise RuntimeError("novalite ships no database migrations")
    return head


def db_version(engine: Engine | None = None) -> str | None:
    """None for a database no db_sync has touched."""
    with (engine or session.get_engine()).connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()
