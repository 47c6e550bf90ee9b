"""A fresh, empty database per test on each backend: SQLite file, PostgreSQL, MariaDB.

PostgreSQL and MariaDB skip when their server is down (and fail under CI=true): see
tests/services.py. Those two are marked `integration`, so `make unit` runs SQLite only.
"""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from novalite.db import migration, session
from tests import services

# SQLite is a unit test; the real servers make the same test an integration one.
BACKENDS = ["sqlite", pytest.param("postgresql", marks=pytest.mark.integration),
            pytest.param("mysql", marks=pytest.mark.integration)]


@pytest.fixture(params=BACKENDS)
def backend_url(request, conf, tmp_path):
    """The URL of a new database; `conf` restores CONF and disposes the engine after."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'test.sqlite'}"
        return
    with services.temporary_database(request.param) as url:
        try:
            yield url
        finally:
            session.dispose()  # no pooled connection of a test may outlive its database


@pytest.fixture
def backend_engine(backend_url):
    """An engine made as the services make theirs (SQLite pragmas, pool settings)."""
    engine = session.make_engine(backend_url)
    yield engine
    engine.dispose()


@pytest.fixture
def backend_db(conf, backend_url) -> None:
    """A migrated database of each backend, as the services reach it through CONF."""
    conf.set_override("connection", backend_url, group="database")
    session.dispose()
    migration.db_sync()


def table_names(engine: sa.Engine) -> set[str]:
    return set(sa.inspect(engine).get_table_names())
