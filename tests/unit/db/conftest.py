"""A fresh database per test on each backend: SQLite file, PostgreSQL, MariaDB."""

import pytest
import sqlalchemy as sa

from novalite.db import session
from tests import services


@pytest.fixture(params=["sqlite", "postgresql", "mysql"])
def backend_engine(request, conf, tmp_path):
    if request.param == "sqlite":
        engine = session.make_engine(f"sqlite:///{tmp_path / 'test.sqlite'}")
        yield engine
        engine.dispose()
        return
    with services.temporary_database(request.param) as url:
        engine = session.make_engine(url)
        yield engine
        engine.dispose()


def table_names(engine: sa.Engine) -> set[str]:
    return set(sa.inspect(engine).get_table_names())
