"""Several processes creating ports on one subnet at once, on PostgreSQL, MariaDB and a
shared SQLite file: every address is handed out once, and an empty pool is a clean
IpAddressGenerationFailure, never a duplicate or a half-made port."""

from __future__ import annotations

import multiprocessing

import pytest
from sqlalchemy import func, select

from novalite.conf import CONF
from novalite.db import migration, session
from novalite.db.models import network as m
from novalite.network import errors, networks, ports, subnets, transaction
from novalite.network.scope import Scope

pytestmark = pytest.mark.integration
PROCESSES = 4
SCOPE = Scope("p1")


def _configure(url: str) -> None:
    CONF([], project="novalite", default_config_files=[])
    CONF.set_override("connection", url, group="database")
    session.dispose()


def _creator(url: str, network_id: str, count: int, results) -> None:
    _configure(url)
    made, exhausted = [], 0
    try:
        for _ in range(count):
            try:
                port = transaction.write(lambda s: ports.create(
                    s, SCOPE, networks.get(s, SCOPE, network_id), "p1", {}))
                made.append(port["fixed_ips"][0]["ip_address"])
            except errors.IpAddressGenerationFailure:
                exhausted += 1
        results.put((made, exhausted, None))
    except Exception as exc:  # reported to the test, which fails on it
        results.put((made, exhausted, repr(exc)))
    finally:
        session.dispose()


def _prepare(url: str, cidr: str) -> str:
    _configure(url)
    migration.db_sync()
    CONF.set_override("quota_port", -1, group="QUOTAS")

    def work(s):
        net = networks.create(s, "p1", {"name": "n"}, {})
        subnets.create(s, networks.get(s, SCOPE, net["id"]), "p1",
                       {"cidr": cidr, "ip_version": 4})
        return net["id"]
    return transaction.write(work)


@pytest.fixture(params=["postgresql", "mysql", "sqlite"])
def url(request, tmp_path):
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path}/network.sqlite"
        return
    from tests import services
    with services.temporary_database(request.param) as found:
        yield found


def _run(url: str, network_id: str, each: int) -> list[tuple]:
    session.dispose()
    spawn = multiprocessing.get_context("spawn")
    results = spawn.Queue()
    procs = [spawn.Process(target=_creator, args=(url, network_id, each, results))
             for _ in range(PROCESSES)]
    for proc in procs:
        proc.start()
    outcomes = [results.get(timeout=240) for _ in procs]
    for proc in procs:
        proc.join(30)
    return outcomes


def _counts(url: str) -> tuple[int, int]:
    _configure(url)
    return transaction.read(lambda s: (
        s.scalar(select(func.count()).select_from(m.Port)),
        s.scalar(select(func.count(func.distinct(m.IPAllocation.ip_address))))))


def test_200_ports_from_4_processes_get_200_distinct_addresses(url):
    network_id = _prepare(url, "10.0.0.0/24")
    try:
        outcomes = _run(url, network_id, 50)
        assert [o[2] for o in outcomes] == [None] * PROCESSES
        addresses = [a for o in outcomes for a in o[0]]
        assert len(addresses) == 200 and len(set(addresses)) == 200
        assert "10.0.0.1" not in addresses  # the gateway
        assert _counts(url) == (200, 200)
    finally:
        session.dispose()
        CONF.reset()


def test_an_exhausted_pool_is_a_clean_failure(url):
    network_id = _prepare(url, "10.0.0.0/28")  # 13 addresses after the gateway
    try:
        outcomes = _run(url, network_id, 5)
        assert [o[2] for o in outcomes] == [None] * PROCESSES
        assert sum(len(o[0]) for o in outcomes) == 13
        assert sum(o[1] for o in outcomes) == 7
        assert _counts(url) == (13, 13)
    finally:
        session.dispose()
        CONF.reset()
