"""SQLite under concurrent writers: no error ever escapes, no update is lost; reads are
snapshots, writes hold the write lock from their start."""

import sqlite3
import threading
import time

import pytest
from sqlalchemy import select, text, update
from sqlalchemy.exc import OperationalError

from novalite.db import models, session
from novalite.db.session import reader, retry_on_deadlock, writer

# Both kinds of write transaction, which take turns with each other as with their own
WRITERS = [writer, session.core_writer]


@retry_on_deadlock
def _increment(write=writer) -> None:
    with write() as s:  # read-modify-write: a lost update would show in the total
        count = s.connection().scalar(select(models.Service.report_count).filter_by(id=1))
        s.connection().execute(update(models.Service.__table__).filter_by(id=1).values(
            report_count=count + 1))


def _service() -> None:
    with writer() as s:
        s.add(models.Service(uuid="u", host="h", binary="b", report_count=0))


def test_concurrent_writers_never_fail_nor_lose_updates(db):
    _service()
    errors = []

    def work(write):
        try:
            for _ in range(50):
                _increment(write)
        except Exception as exc:  # noqa: BLE001 (collected for the assertion)
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(WRITERS[i % 2],)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    with reader() as s:
        assert s.scalar(select(models.Service.report_count)) == 400


def test_readers_are_not_blocked_by_a_writer(db):
    _service()
    with writer() as s:
        s.execute(update(models.Service).values(host="changing"))
        s.flush()
        with reader() as r:  # WAL: sees the last committed state at once
            assert r.execute(text("PRAGMA journal_mode")).scalar() == "wal"
            assert r.scalar(select(models.Service.host)) == "h"
    with reader() as r:
        assert r.scalar(select(models.Service.host)) == "changing"


def test_sqlite_writes_take_turns_on_one_connection_of_their_own(db):
    """Its page cache then stays valid from one write to the next (no other connection
    of the process writes)."""
    used = set()

    def write(kind) -> None:
        for _ in range(5):
            with kind() as s:
                used.add(id(s.connection().connection.dbapi_connection))

    threads = [threading.Thread(target=write, args=(WRITERS[i % 2],)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    with writer(), reader() as r:  # the writer holding its connection
        assert id(r.connection().connection.dbapi_connection) not in used
    assert len(used) == 1


@pytest.mark.parametrize("write", WRITERS)
def test_a_writer_commits_on_success_and_rolls_back_on_error(db, write):
    row = {"uuid": "x", "host": "h", "binary": "b", "report_count": 0, "disabled": False}
    with pytest.raises(RuntimeError), write() as s:
        s.connection().execute(models.Service.__table__.insert(), row)
        raise RuntimeError("boom")
    with reader() as s:
        assert s.scalars(select(models.Service)).all() == []
    with write() as s:
        s.connection().execute(models.Service.__table__.insert(), row)
    with reader() as s:
        assert s.scalars(select(models.Service.uuid)).all() == ["x"]


def test_wait_for_database_returns_at_once_when_it_is_there(conf, tmp_path):
    conf.set_override("connection", f"sqlite:///{tmp_path / 'up.sqlite'}", group="database")
    started = time.monotonic()
    session.wait_for_database()
    assert time.monotonic() - started < 1


def test_unreachable_database_is_retried_then_reported(conf, caplog):
    conf.set_override("connection", "postgresql+psycopg://postgres@127.0.0.1:1/x",
                      group="database")
    conf.set_override("max_retries", 1, group="database")
    conf.set_override("retry_interval", 1, group="database")
    session.dispose()
    with pytest.raises(OperationalError):
        session.wait_for_database()
    retries = [r for r in caplog.records if "Trying again in 1 seconds" in r.getMessage()]
    assert len(retries) == 1


def test_a_json_column_reads_back_what_only_the_standard_parser_takes(db):
    """orjson reads JSON columns; NaN and integers past 64 bits (which it refuses) still
    read back."""
    with writer() as s:
        s.execute(text("INSERT INTO request_specs (instance_uuid, spec) VALUES "
                       "('u1', '{\"nan\": NaN, \"big\": 123456789012345678901234567890}')"))
    with reader() as s:
        spec = s.scalar(select(models.RequestSpec.spec))
    assert spec["big"] == 123456789012345678901234567890 and spec["nan"] != spec["nan"]


def _locked_by_another() -> bool:
    """Whether a second connection (not waiting) finds the write lock taken."""
    other = sqlite3.connect(session.get_engine().url.database, timeout=0,
                            isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")
        other.execute("ROLLBACK")
        return False
    except sqlite3.OperationalError as exc:
        assert "locked" in str(exc)
        return True
    finally:
        other.close()


@pytest.mark.parametrize("write", WRITERS)
def test_a_writer_holds_the_write_lock_from_its_first_statement(db, write):
    """BEGIN IMMEDIATE: what it read before its own write still holds when it commits."""
    _service()
    with write() as s:
        s.connection().scalar(select(models.Service.host))
        assert _locked_by_another()
    assert not _locked_by_another()


@pytest.mark.parametrize("read", [reader, session.core_reader])
def test_a_read_sees_one_snapshot_throughout(db, read):
    """Each read transaction begins with BEGIN, a Session's or a bare connection's: the
    driver, left to itself, would run each statement on its own."""
    _service()
    host = select(models.Service.host)
    with read() as r:
        assert r.connection().scalar(host) == "h"
        assert not _locked_by_another()  # a reader takes no write lock
        with writer() as s:
            s.execute(update(models.Service).values(host="moved"))
        assert r.connection().scalar(host) == "h"
    with read() as r:
        assert r.connection().scalar(host) == "moved"


def test_a_core_read_gives_its_connection_back_rolled_back(db):
    """What the pool hands out next is not inside the read's transaction."""
    _service()
    with session.core_reader() as r:
        r.connection().scalar(select(models.Service.host))
        dbapi = r.connection().connection.driver_connection
        assert dbapi.in_transaction
    assert not dbapi.in_transaction


def test_a_connection_begins_immediate_only_while_asked(db):
    """As a migration's transaction does, on a connection of the shared pool."""
    with session.get_engine().connect() as connection:
        with session.begins_immediate(connection), connection.begin():
            connection.execute(select(models.Service.id))
            assert _locked_by_another()
        with connection.begin():
            connection.execute(select(models.Service.id))
            assert not _locked_by_another()


def test_a_threads_sessions_are_used_again_clean_and_never_twice_at_once(db):
    """Each kind of transaction reuses its thread's last session, closed and with what
    the transaction kept in its info gone; a nested one gets a session of its own."""
    with reader() as first:
        first.info["kept"] = 1
        with reader() as nested:
            assert nested is not first
    with reader() as again:
        assert again is first and again.info == {}
    with writer() as written:
        assert written is not first
    with writer() as rewritten:
        assert rewritten is written
    seen = []

    def read_elsewhere() -> None:
        with reader() as elsewhere:
            seen.append(elsewhere)

    thread = threading.Thread(target=read_elsewhere)
    thread.start()
    thread.join()
    assert seen[0] is not first


def test_a_session_made_before_the_engine_changed_is_not_used_again(db):
    with reader() as before:
        pass
    session.dispose()
    with reader() as after:
        assert after is not before
        assert after.get_bind() is session.get_engine()
