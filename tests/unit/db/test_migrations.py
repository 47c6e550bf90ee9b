"""Migrations run on SQLite, PostgreSQL and MariaDB and produce exactly the models."""

from __future__ import annotations

import io
import logging
import subprocess
import sys
import time

import alembic.util
import pytest
import sqlalchemy as sa
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext

from novalite.db import migration, models, session
from tests.unit.db.conftest import table_names

EVERY_TABLE = {*models.Base.metadata.tables, "alembic_version"}


def _migration_log(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "novalite.db.migration"]


def test_upgrade_matches_the_models_exactly(backend_engine):
    migration.db_sync(engine=backend_engine)
    assert migration.db_version(backend_engine) == migration.head_revision()
    assert table_names(backend_engine) == EVERY_TABLE
    with backend_engine.connect() as conn:
        context = MigrationContext.configure(conn, opts={"compare_type": True})
        assert compare_metadata(context, models.Base.metadata) == []


def _named_objects(table: sa.Table) -> dict[str, set]:
    return {
        "pk": {table.primary_key.name},
        "unique": {c.name for c in table.constraints if isinstance(c, sa.UniqueConstraint)},
        "index": {i.name for i in table.indexes},
        "fk": {c.name for c in table.foreign_key_constraints},
    }


def _reflected_objects(inspector: sa.Inspector, table: str) -> dict[str, set]:
    fks = {f["name"] for f in inspector.get_foreign_keys(table)}
    return {
        "pk": {inspector.get_pk_constraint(table)["name"]},
        "unique": {u["name"] for u in inspector.get_unique_constraints(table)},
        # MariaDB backs each foreign key without a usable index with one of the FK's name.
        "index": {i["name"] for i in inspector.get_indexes(table)
                  if not i["unique"] and i["name"] not in fks},
        "fk": fks,
    }


def test_constraints_and_indexes_carry_the_naming_convention_names(backend_engine):
    """compare_metadata ignores the names of primary and foreign keys; a later migration
    that drops one by name needs them to be what the models say."""
    migration.db_sync(engine=backend_engine)
    inspector = sa.inspect(backend_engine)
    for table in models.Base.metadata.sorted_tables:
        expected = _named_objects(table)
        if backend_engine.dialect.name == "mysql":
            expected["pk"] = {None}  # MariaDB calls every primary key PRIMARY
        assert _reflected_objects(inspector, table.name) == expected, table.name


def test_sync_twice_is_a_no_op(backend_engine, caplog):
    caplog.set_level(logging.INFO, logger="novalite.db.migration")
    migration.db_sync(engine=backend_engine)
    assert _migration_log(caplog)[0] == "Upgraded the database schema to 0001 (Initial schema)"
    assert len(_migration_log(caplog)) == len(migration.revisions())
    with backend_engine.begin() as conn:
        conn.execute(sa.insert(models.Flavor.__table__).values(
            flavorid="1", name="m1.tiny", memory_mb=512, vcpus=1, root_gb=1, ephemeral_gb=0,
            swap=0, rxtx_factor=1.0, disabled=False, is_public=True))
    caplog.clear()

    migration.db_sync(engine=backend_engine)

    assert _migration_log(caplog) == []
    assert migration.db_version(backend_engine) == migration.head_revision()
    assert table_names(backend_engine) == EVERY_TABLE
    with backend_engine.connect() as conn:
        assert conn.scalar(sa.select(sa.func.count()).select_from(models.Flavor)) == 1


def test_downgrade_to_base_removes_every_table(backend_engine):
    migration.db_sync(engine=backend_engine)
    migration.db_downgrade("base", engine=backend_engine)
    assert table_names(backend_engine) == {"alembic_version"}
    assert migration.db_version(backend_engine) is None
    migration.db_sync(engine=backend_engine)  # and back: the downgrade left nothing behind
    assert migration.db_version(backend_engine) == migration.head_revision()


SYNC = """
import logging, sys, time
from novalite.conf import CONF
from novalite.db import migration, session
logging.basicConfig(level=logging.WARNING, format="%(name)s %(message)s")
logging.getLogger("novalite.db.migration").setLevel(logging.INFO)
CONF([], project="novalite", default_config_files=[])
engine = session.make_engine(sys.argv[1])
time.sleep(max(0.0, float(sys.argv[2]) - time.time()))
migration.db_sync(engine=engine)
"""


def test_concurrent_syncs_migrate_once(backend_url):
    """Services starting together on an empty database: one migrates, the others wait.
    Separate processes, as in a deployment (and alembic's proxies are per process)."""
    start_at = time.time() + 1.5  # after every interpreter has imported novalite
    procs = [subprocess.Popen([sys.executable, "-c", SYNC, backend_url, str(start_at)],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
             for _ in range(3)]
    outputs = [p.communicate(timeout=60)[0] for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0], "\n".join(outputs)
    for revision in migration.revisions():
        assert "\n".join(outputs).count(f"Upgraded the database schema to {revision} ") == 1
    engine = session.make_engine(backend_url)
    try:
        assert migration.db_version(engine) == migration.head_revision()
    finally:
        engine.dispose()


@pytest.mark.timeout(60)
def test_a_failed_sync_releases_its_lock(backend_url):
    first, second = session.make_engine(backend_url), session.make_engine(backend_url)
    try:
        with pytest.raises(alembic.util.CommandError):
            migration.db_sync("no-such-revision", engine=first)
        migration.db_sync(engine=second)  # would wait for the lock forever if it leaked
        assert migration.db_version(second) == migration.head_revision()
    finally:
        first.dispose()
        second.dispose()


def test_sqlite_foreign_keys_are_enforced_again_after_a_sync(tmp_path):
    engine = session.make_engine(f"sqlite:///{tmp_path / 'fk.sqlite'}")
    try:
        migration.db_sync(engine=engine)
        assert engine.pool.checkedin() == 1  # the connection the migration used
        with engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
            with pytest.raises(sa.exc.IntegrityError):
                conn.execute(sa.insert(models.FlavorExtraSpec.__table__).values(
                    flavor_id=999, key="k", value="v"))
    finally:
        engine.dispose()


@pytest.mark.integration
@pytest.mark.parametrize("backend_url", ["mysql"], indirect=True)
def test_mariadb_tables_are_innodb_utf8mb4_whatever_the_database_default(backend_url):
    name = sa.make_url(backend_url).database
    engine = session.make_engine(backend_url)
    try:
        with engine.begin() as conn:
            conn.exec_driver_sql(f"ALTER DATABASE `{name}` CHARACTER SET latin1")
        migration.db_sync(engine=engine)
        with engine.connect() as conn:
            rows = conn.execute(sa.text(
                "SELECT table_name, engine, table_collation FROM information_schema.tables "
                "WHERE table_schema = :db AND table_name != 'alembic_version'"), {"db": name})
            tables = {t: (e, c.split("_")[0]) for t, e, c in rows}
    finally:
        engine.dispose()
    assert tables == {t: ("InnoDB", "utf8mb4") for t in models.Base.metadata.tables}


def test_db_sync_creates_the_directory_of_a_configured_sqlite_file(conf, tmp_path):
    path = tmp_path / "not" / "yet" / "there.sqlite"
    conf.set_override("connection", f"sqlite:///{path}", group="database")
    migration.db_sync()
    assert path.exists()
    assert migration.db_version() == migration.head_revision()


def test_alembic_without_a_connection_migrates_the_configured_database(conf, tmp_path):
    """The path a developer's `command.revision(..., autogenerate=True)` takes."""
    conf.set_override("connection", f"sqlite:///{tmp_path / 'dev.sqlite'}", group="database")
    command.upgrade(migration.alembic_config(), "head")
    assert migration.db_version() == migration.head_revision()


def test_offline_mode_renders_the_sql_for_the_configured_backend(conf):
    conf.set_override("connection", "postgresql+psycopg://nobody@127.0.0.1:1/nowhere",
                      group="database")
    config = migration.alembic_config()
    config.output_buffer = io.StringIO()
    command.upgrade(config, "head", sql=True)
    sql = config.output_buffer.getvalue()
    assert "CREATE TABLE services" in sql and "JSON" in sql
    assert "CREATE INDEX ix_instances_host_deleted ON instances" in sql


def test_db_sync_command_on_the_configured_database(tmp_path):
    config = tmp_path / "novalite.conf"
    config.write_text(f"[DEFAULT]\nstate_path = {tmp_path}\n")
    out = subprocess.run([sys.executable, "-m", "novalite.cmd.manage", "--config-file",
                          str(config), "db", "sync"], capture_output=True, text=True,
                         check=True).stdout
    assert f"Database schema is at version {migration.head_revision()}" in out
    assert (tmp_path / "novalite.sqlite").exists()
