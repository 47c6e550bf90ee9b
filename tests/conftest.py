"""Shared fixtures: a clean configuration per test, a migrated database, a running cloud."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from novalite.clients import placement as placement_client
from novalite.conf import CONF
from novalite.db import session
from novalite.rpc.transport import reset_transports
from tests import services
from tests.notifications import sink  # noqa: F401 (a fixture for every test)

# Property tests (marked `slow`): derandomised, so every run tries the same examples; a
# few by default for a quick local run, the full count in CI (CI=true, or choose with
# HYPOTHESIS_PROFILE). Tests scale their count from settings.default.max_examples.
settings.register_profile("default", max_examples=10, deadline=None, derandomize=True,
                          suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                 HealthCheck.too_slow])
settings.register_profile("ci", settings.get_profile("default"), max_examples=150)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE")
                      or ("ci" if services.in_ci() else "default"))

INTEGRATION = Path(__file__).parent / "integration"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Everything under tests/integration is `integration`, so `-m "not integration"`
    leaves exactly the tests that need no outside service."""
    for item in items:
        if INTEGRATION in item.path.parents:
            item.add_marker(pytest.mark.integration)


@pytest.fixture(scope="session", autouse=True)
def machine_namespace_unchanged():
    """The suite builds real guests' networks only inside namespaces of its own: the
    machine's interfaces, routes and firewall are as they were once it is done (checked
    per test worker, at its end)."""
    before = services.root_namespace()
    yield
    assert services.root_namespace() == before


@pytest.fixture
def conf(tmp_path):
    """The global CONF, parsed with no files, with state under a fresh temp directory."""
    CONF([], project="novalite", default_config_files=[])
    CONF.set_override("state_path", str(tmp_path))
    # existing tests name the caller with noauth2 tokens; identity's tests opt into keystone
    CONF.set_override("auth_strategy", "noauth2", group="api")
    # the cheapest scrypt: hundreds of clouds bootstrap their users (unit tests of the
    # hashing choose their own cost)
    CONF.set_override("password_hash_rounds", 4, group="identity")
    yield CONF
    placement_client.reset()
    reset_transports()
    session.dispose()
    CONF.reset()


@pytest.fixture(scope="session")
def migrated_sqlite(tmp_path_factory) -> Path:
    """An SQLite database at the current schema, migrated once per test process: the
    tests that start from an empty database copy it (a millisecond) instead of running
    every migration again (a tenth of a second, hundreds of times)."""
    from novalite.db import migration

    path = tmp_path_factory.mktemp("template") / "novalite.sqlite"
    engine = session.make_engine(f"sqlite:///{path}")
    migration.db_sync(engine=engine)
    engine.dispose()  # the last connection's close folds the write-ahead log into the file
    return path


@pytest.fixture
def state_db(conf, migrated_sqlite) -> None:
    """The state directory's own database, empty and at the current schema (and no
    engine left from a test without `conf` still pointing elsewhere)."""
    session.dispose()
    shutil.copyfile(migrated_sqlite, Path(CONF.state_path) / "novalite.sqlite")


@pytest.fixture
def db(state_db):
    """A migrated SQLite database under the test's state directory."""
    return session.get_engine()
