"""A migrated SQLite database and a topology builder on one connection."""

from __future__ import annotations

import pytest

from novalite.placement.candidates.request import Options
from tests.unit.placement.topology import Topology


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
