"""Migrations run on SQLite, PostgreSQL and MariaDB and produce exactly the models."""

from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext

from novalite.db import migration, models
from tests.unit.db.conftest import table_names


def test_upgrade_matches_the_models_exactly(backend_engine):
    migration.db_sync(engine=backend_engine)
    assert migration.db_version(backend_engine) == "0001"
    with backend_engine.connect() as conn:
        context = MigrationContext.configure(conn, opts={"compare_type": True})
        assert compare_metadata(context, models.Base.metadata) == []


def test_sync_twice_is_a_no_op(backend_engine):
    migration.db_sync(engine=backend_engine)
    migration.db_sync(engine=backend_engine)
    assert table_names(backend_engine) == {*models.Base.metadata.tables, "alembic_version"}


def test_downgrade_to_base_removes_every_table(backend_engine):
    migration.db_sync(engine=backend_engine)
    migration.db_downgrade("base", engine=backend_engine)
    assert table_names(backend_engine) == {"alembic_version"}
    assert migration.db_version(backend_engine) is None


def test_db_sync_command_on_the_configured_database(conf, tmp_path):
    import subprocess
    import sys

    config = tmp_path / "novalite.conf"
    config.write_text(f"[DEFAULT]\nstate_path = {tmp_path}\n")
    out = subprocess.run([sys.executable, "-m", "novalite.cmd.manage", "--config-file",
                          str(config), "db", "sync"], capture_output=True, text=True,
                         check=True).stdout
    assert "Database schema is at version 0001" in out
    assert (tmp_path / "novalite.sqlite").exists()
