"""Engine and transactions for SQLite, PostgreSQL and MariaDB.

Every unit of work is `with reader() as s:` or `with writer() as s:` (or, for a unit of
Core statements only, the cheaper `with core_reader() as s:` and `with core_writer() as
s:`). On SQLite (the embedded default, where every service of the all-in-one writes to
one file) a writer takes the write lock up front (`BEGIN IMMEDIATE`), so two writers
never deadlock on a lock upgrade; WAL lets readers run beside the writer; the busy
timeout makes a writer wait its turn; and "database is locked" that still escapes is
retried. Together they mean concurrent writers never surface as an error. Writers of one
process also queue on a Python lock first: SQLite's own busy handler sleeps in growing
steps (up to 100 ms), which under a burst of writers costs far more than the writes
themselves.
"""

from __future__ import annotations

import contextlib
import datetime
import functools
import json
import logging
import os
import random
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Protocol, TypeVar, cast

import orjson
from sqlalchemy import create_engine, event
from sqlalchemy.dialects import registry
from sqlalchemy.dialects.sqlite.pysqlite import SQLiteDialect_pysqlite
from sqlalchemy.engine import URL, Connection, CursorResult, Engine, make_url
from sqlalchemy.exc import DBAPIError, OperationalError
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.sql import Executable

from novalite.conf import CONF

LOG = logging.getLogger(__name__)
T = TypeVar("T")

_lock = threading.Lock()
_sqlite_writer = threading.Lock()
_engine: Engine | None = None
_factory: sessionmaker | None = None
# What writers run on (on SQLite, an engine of its own: _writer_engine), made once: a new
# one per transaction would defeat the caches keyed on the bind (consumer type ids).
_writer_bind: Engine | None = None


def connection_url() -> str:
    if CONF.database.connection:
        return CONF.database.connection
    os.makedirs(CONF.state_path, exist_ok=True)
    return f"sqlite:///{os.path.join(CONF.state_path, 'novalite.sqlite')}"


def _set_wal(cursor: Any, busy_timeout: int) -> None:
    """SQLite answers "database is locked" at once, without its busy handler, when a
    connection switches to WAL while another process does the same on a new file (several
    services starting together); so wait here as the busy timeout would."""
    deadline = time.monotonic() + busy_timeout
    while True:
        try:
            cursor.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


# In a SQLite connection's info: the statement its transactions begin with, if not BEGIN.
_BEGIN = "novalite_begin"
BEGIN_IMMEDIATE = "BEGIN IMMEDIATE"


class SQLiteDialect(SQLiteDialect_pysqlite):
    """pysqlite, with each transaction begun here (the driver, left in autocommit mode,
    begins none; in its own mode it begins only before a write), by `BEGIN IMMEDIATE` on
    a connection that writes. In the dialect rather than in a "begin" event, SQLAlchemy's
    recipe: an engine with any connection event dispatches events around every
    statement, a quarter of the Python calls of a one-row read or write."""

    supports_statement_cache = True

    def do_begin(self, dbapi_connection: Any) -> None:
        dbapi_connection.execute(dbapi_connection.info.get(_BEGIN, "BEGIN"))


registry.register("sqlite.novalite", __name__, "SQLiteDialect")


def _sqlite_setup(engine: Engine, busy_timeout: int, begin: str | None) -> None:
    @event.listens_for(engine, "connect")
    def _connect(dbapi_conn: Any, record: Any) -> None:
        dbapi_conn.isolation_level = None  # we emit BEGIN ourselves
        cursor = dbapi_conn.cursor()
        _set_wal(cursor, busy_timeout)
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute(f"PRAGMA busy_timeout={busy_timeout * 1000}")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.close()
        if begin is not None:
            record.info[_BEGIN] = begin


@contextlib.contextmanager
def begins_immediate(connection: Connection) -> Iterator[None]:
    """On SQLite, the transactions `connection` begins meanwhile take the write lock at
    once (a migration: one migrating connection at a time)."""
    info = connection.connection.info
    before = info.get(_BEGIN)
    info[_BEGIN] = BEGIN_IMMEDIATE
    try:
        yield
    finally:
        if before is None:
            info.pop(_BEGIN, None)
        else:
            info[_BEGIN] = before


def _create_private(url: str) -> None:
    """Create a SQLite database file readable by its owner only before SQLite creates it
    with the umask's mode (its -wal and -shm files take the database file's mode)."""
    path = make_url(url).database
    if path and path != ":memory:" and not path.startswith("file:"):
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        with contextlib.suppress(FileExistsError):
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))


def json_loads(text: str | bytes) -> Any:
    """JSON columns read by orjson: the standard library's parser was a quarter of a
    1,000-server list (each server's cached network info). What orjson refuses and the
    standard library reads (NaN, integers past 64 bits) is read by the latter."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return json.loads(text)


def make_engine(url: str, pool_size: int | None = None, max_overflow: int | None = None,
                begin: str | None = None) -> Engine:
    """`begin`: on SQLite, what the engine's transactions begin with, if not BEGIN."""
    if url.startswith("sqlite"):
        _create_private(url)
        engine = create_engine(
            _novalite_sqlite(url),
            json_deserializer=json_loads,
            connect_args={"check_same_thread": False, "timeout": CONF.database.sqlite_busy_timeout},
            pool_size=CONF.database.max_pool_size if pool_size is None else pool_size,
            max_overflow=CONF.database.max_overflow if max_overflow is None else max_overflow,
            echo=CONF.database.connection_debug,
        )
        _sqlite_setup(engine, CONF.database.sqlite_busy_timeout, begin)
        return engine
    return create_engine(
        url,
        json_deserializer=json_loads,
        pool_pre_ping=True,
        pool_size=CONF.database.max_pool_size,
        max_overflow=CONF.database.max_overflow,
        pool_recycle=3600,
        echo=CONF.database.connection_debug,
    )


def _novalite_sqlite(url: str) -> URL:
    """The URL with novalite's SQLite dialect (`sqlite+novalite`) for pysqlite's."""
    parsed = make_url(url)
    if parsed.drivername in ("sqlite", "sqlite+pysqlite"):
        parsed = parsed.set(drivername="sqlite+novalite")
    return parsed


def _writer_engine(url: str, engine: Engine) -> Engine:
    """On SQLite, this process's writes (one at a time: `writer`) go through one
    connection of their own. A connection's page cache stays valid only while no other
    connection writes; writes taking turns over a pool of connections each started on a
    stale cache and read the pages back (a quarter more CPU per port create with 8
    clients than with one)."""
    if engine.dialect.name != "sqlite":
        return engine
    return make_engine(url, pool_size=1, max_overflow=0, begin=BEGIN_IMMEDIATE)


def get_engine() -> Engine:
    global _engine, _factory, _writer_bind
    with _lock:
        if _engine is None:
            url = connection_url()
            _engine = make_engine(url)
            _factory = sessionmaker(bind=_engine, expire_on_commit=False)
            _writer_bind = _writer_engine(url, _engine)
        return _engine


def dispose() -> None:
    """Forget the engine (after a configuration change, and at shutdown)."""
    global _engine, _factory, _writer_bind
    with _lock:
        if _writer_bind is not None:
            _writer_bind.engine.dispose()
        if _engine is not None:
            _engine.dispose()
        _engine = _factory = _writer_bind = None


def wait_for_database() -> None:
    """Connect at start-up, retrying with a clear log line while the database is away."""
    attempts = CONF.database.max_retries
    tried = 0
    while True:
        try:
            with get_engine().connect() as conn:
                conn.exec_driver_sql("SELECT 1")
            return
        except OperationalError as exc:
            tried += 1
            if attempts != -1 and tried > attempts:
                raise
            LOG.error("Database at %s is unreachable: %s. Trying again in %d seconds.",
                      get_engine().url.render_as_string(hide_password=True),
                      exc.orig, CONF.database.retry_interval)
            time.sleep(CONF.database.retry_interval)


def _is_retryable(exc: DBAPIError) -> bool:
    text = str(exc.orig).lower()
    return any(s in text for s in ("database is locked", "deadlock", "lock wait timeout",
                                    "could not serialize"))


def retry_on_deadlock(func: Callable[..., T]) -> Callable[..., T]:
    """Re-run a whole transaction that lost a lock race (SQLite busy, MySQL deadlock)."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> T:
        for attempt in range(20):
            try:
                return func(*args, **kwargs)
            except DBAPIError as exc:
                if not _is_retryable(exc) or attempt == 19:
                    raise
                LOG.debug("Retrying %s after lock conflict: %s", func.__name__, exc.orig)
                time.sleep(min(0.5, 0.01 * 2**attempt) * random.uniform(0.5, 1.5))
        raise AssertionError("unreachable")

    return wrapper


_spare = threading.local()  # per thread and kind: a closed session to use again


@contextlib.contextmanager
def _session(kind: str, bind: Engine | None = None) -> Iterator[Session]:
    """A session of this thread's, closed after the block and used again by the
    thread's next transaction of the same kind: making one cost a read a quarter of its
    CPU (165 against 120 µs). One the block nests inside another is a new one, and one
    made before the engine changed is not used again."""
    factory = _factory
    assert factory is not None
    spare = getattr(_spare, kind, None)
    if spare is not None and spare[0] is factory:
        setattr(_spare, kind, None)
        session = spare[1]
    else:
        session = factory() if bind is None else factory(bind=bind)
    try:
        yield session
    finally:
        session.close()
        session.info.clear()  # what the transaction's code kept for itself
        setattr(_spare, kind, (factory, session))


@contextlib.contextmanager
def reader() -> Iterator[Session]:
    """A read transaction, ended by closing the session (the pool rolls its connection
    back). A session rollback first would also expire every object it read, 7 % of the
    Python calls of a one-volume read, to no use: a closed session's objects are not
    read again through it."""
    get_engine()
    with _session("reader") as session:
        yield session


class Unit(Protocol):
    """What a unit of Core statements needs of its transaction: a Session, or the
    connection of a core_reader() or a core_writer()."""

    def connection(self) -> Connection: ...


class _OnConnection:
    def __init__(self, connection: Connection) -> None:
        self._connection = connection

    def connection(self) -> Connection:
        return self._connection


@contextlib.contextmanager
def core_reader() -> Iterator[Unit]:
    """A read transaction on a bare connection, for reads of Core statements only (no
    ORM objects): without a Session's transaction object, snapshot and close around it,
    a volume's one-statement read costs 115 µs against 160, and the reads clients poll
    (a volume, an instance) are most of a cloud's transactions. The connection begins
    its transaction at its first statement and rolls it back when it is closed."""
    with get_engine().connect() as connection:
        yield _OnConnection(connection)


def _serialised(engine: Engine) -> contextlib.AbstractContextManager:
    """This process's writers one at a time on SQLite (see the module's docstring)."""
    return _sqlite_writer if engine.dialect.name == "sqlite" else contextlib.nullcontext()


@contextlib.contextmanager
def writer() -> Iterator[Session]:
    """A transaction that commits on success; callers wrap the unit in retry_on_deadlock."""
    with _serialised(get_engine()), _session("writer", _writer_bind) as session, \
            session.begin():
        yield session


@contextlib.contextmanager
def core_writer() -> Iterator[Unit]:
    """`writer` on a bare connection, for units of Core statements only (no ORM objects):
    without a Session's transaction object, flush and close around them, as
    core_reader is to reader. Most of a boot's writes are such units (each state change
    of the instance, its action events, its node's usage)."""
    engine = get_engine()
    assert _writer_bind is not None
    with _serialised(engine), _writer_bind.connect() as connection, connection.begin():
        yield _OnConnection(connection)


def writes_serialised() -> bool:
    """Whether write transactions run one at a time (SQLite: each holds the database's
    write lock from its BEGIN IMMEDIATE to its commit, across processes), so that what
    one checked before its own write still holds when it commits."""
    return get_engine().dialect.name == "sqlite"


def stamped_since(moment: datetime.datetime) -> datetime.datetime:
    """The earliest stored stamp of a row stamped at or after `moment`: MariaDB's DATETIME
    keeps whole seconds (the fraction is cut), SQLite and PostgreSQL keep microseconds.
    What a read of the rows written since `moment` compares the stamps with."""
    return moment.replace(microsecond=0) if get_engine().dialect.name == "mysql" else moment


def run_dml(s: Session, statement: Executable,
            params: dict[str, Any] | None = None) -> CursorResult[Any]:
    """Run an INSERT, UPDATE or DELETE. Its result is a cursor result (rowcount,
    inserted_primary_key), which SQLAlchemy's Session.execute types as the plain Result."""
    return cast("CursorResult[Any]", s.execute(statement, params))


def insert_id(s: Unit, statement: Executable,
              params: dict[str, Any] | None = None) -> int:
    """Run an INSERT of one row (of a table: nothing for a Session to flush first) on the
    transaction's connection; its new primary key."""
    key = cast("CursorResult[Any]", s.connection().execute(statement, params)
               ).inserted_primary_key
    if key is None:
        raise ValueError("not a single-row INSERT")
    return int(key[0])


IN_CHUNK = 500  # values per IN (...) of one statement: under every backend's bind limit


def in_chunks(values: Sequence[T]) -> Iterator[Sequence[T]]:
    """`values` a bounded number at a time, for reads and writes of thousands of rows by
    key (a compute simulating thousands of hosts asks about all of them at once)."""
    for start in range(0, len(values), IN_CHUNK):
        yield values[start:start + IN_CHUNK]


def unseen(rows: Iterable[Any], known: dict[Any, tuple[Any, ...]], key: str
           ) -> Iterator[Any]:
    """The rows whose values differ from the row last seen with the same `key` column,
    which `known` keeps. The scheduler's refresh re-reads the past few seconds of node
    and service changes, most of them read before: decoding those again was most of a
    refresh in a boot storm."""
    for row in rows:
        values = tuple(row)
        ident = row._mapping[key]
        if known.get(ident) != values:
            known[ident] = values
            yield row
