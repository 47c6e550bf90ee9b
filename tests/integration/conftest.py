"""The distributed topology's fixtures: a RabbitMQ vhost and a database of the test's own,
and the services as processes (tests.topology)."""

from __future__ import annotations

import os

import pytest

from tests import services
from tests.topology import Topology


@pytest.fixture
def rabbit_vhost():
    with services.temporary_vhost() as url:
        yield url


@pytest.fixture(params=["postgresql", "mysql"])
def database_url(request):
    """A new, empty database on the real PostgreSQL or MariaDB."""
    with services.temporary_database(request.param) as url:
        yield url


@pytest.fixture
def topology(tmp_path, rabbit_vhost, database_url):
    topo = Topology(tmp_path, rabbit_vhost, database_url)
    yield topo
    topo.stop()
    if os.environ.get("NOVALITE_KEEP_LOGS"):
        print({name: topo.log(name)[-2000:] for name in topo.procs})
