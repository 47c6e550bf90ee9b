"""The placement data layer on a migrated SQLite database, with its standard rows, and a
topology builder on one connection for the allocation-candidate tests; `backend_db` for
what also runs on PostgreSQL and MariaDB."""

from __future__ import annotations

import uuid

import pytest

from novalite.db import session
from novalite.placement import inventory, resource_provider, standards
from novalite.placement.candidates.request import Options
from tests.unit.db.conftest import backend_db, backend_url  # noqa: F401 (fixtures)
from tests.unit.placement.topology import Topology


@pytest.fixture
def placement_db(db):
    standards.ensure()
    return db


@pytest.fixture
def make_provider(placement_db):
    def make(name: str | None = None, parent: str | None = None, **invs: int):
        with session.writer() as s:
            provider = resource_provider.create(s, str(uuid.uuid4()), name or str(uuid.uuid4()),
                                                parent)
            if invs:
                inventory.replace_all(s, provider, 0, {rc: inventory.Inventory(total)
                                                       for rc, total in invs.items()})
            return resource_provider.get(s, provider.uuid)

    return make


@pytest.fixture
def conn(db):
    with db.begin() as connection:
        yield connection


@pytest.fixture
def topo(conn) -> Topology:
    return Topology(conn)


@pytest.fixture
def options() -> Options:
    return Options()
