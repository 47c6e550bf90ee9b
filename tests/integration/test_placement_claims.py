"""Several processes claiming from the same providers at once on PostgreSQL, MariaDB and a
shared SQLite file: every claim is all-or-nothing and no provider is ever overcommitted."""

from __future__ import annotations

import multiprocessing
import uuid

import pytest

from novalite.conf import CONF
from novalite.db import migration, session
from novalite.placement import allocation, errors, inventory, resource_provider, standards

pytestmark = pytest.mark.integration
PROCESSES, CLAIMS_EACH, CAPACITY = 4, 25, 60


def _configure(url: str) -> None:
    CONF([], project="novalite", default_config_files=[])
    CONF.set_override("connection", url, group="database")
    session.dispose()


def _claimer(url: str, providers: tuple[str, str], results) -> None:
    """Claim one VCPU from the tight provider and one MEMORY_MB from the roomy one, as a
    client would: retry a concurrent-update 409, give up on a capacity 409."""
    _configure(url)
    granted, refused = 0, 0
    try:
        for _ in range(CLAIMS_EACH):
            claim = allocation.Claim(str(uuid.uuid4()), {providers[0]: {"VCPU": 1},
                                                         providers[1]: {"MEMORY_MB": 1}},
                                     "p", "u", None, True, "INSTANCE")
            while True:
                try:
                    allocation.claim(lambda s, c=claim: allocation.replace(s, [c]))
                    granted += 1
                except errors.ConcurrentUpdate:
                    continue
                except errors.Conflict:
                    refused += 1
                break
        results.put((granted, refused, None))
    except Exception as exc:  # reported to the test, which fails on it
        results.put((granted, refused, repr(exc)))
    finally:
        session.dispose()


def _prepare(url: str) -> tuple[str, str]:
    _configure(url)
    migration.db_sync()
    standards.ensure()
    uuids = []
    with session.writer() as s:
        for name, invs in (("tight", {"VCPU": inventory.Inventory(CAPACITY)}),
                           ("roomy", {"MEMORY_MB": inventory.Inventory(10**6)})):
            provider = resource_provider.create(s, str(uuid.uuid4()), name, None)
            inventory.replace_all(s, provider, 0, invs)
            uuids.append(provider.uuid)
    return uuids[0], uuids[1]


def _used(uuid_: str) -> int:
    from novalite.placement import usage
    with session.reader() as s:
        provider = resource_provider.get(s, uuid_)
        return sum(usage.for_provider(s, provider.id).values())


@pytest.fixture(params=["postgresql", "mysql", "sqlite"])
def url(request, tmp_path):
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path}/placement.sqlite"
        return
    from tests import services
    with services.temporary_database(request.param) as found:
        yield found


def test_processes_never_overcommit(url):
    providers = _prepare(url)
    session.dispose()
    spawn = multiprocessing.get_context("spawn")
    results = spawn.Queue()
    procs = [spawn.Process(target=_claimer, args=(url, providers, results))
             for _ in range(PROCESSES)]
    for proc in procs:
        proc.start()
    outcomes = [results.get(timeout=240) for _ in procs]
    for proc in procs:
        proc.join(30)
    try:
        assert [o[2] for o in outcomes] == [None] * PROCESSES
        granted = sum(o[0] for o in outcomes)
        assert granted == CAPACITY
        assert sum(o[1] for o in outcomes) == PROCESSES * CLAIMS_EACH - CAPACITY
        _configure(url)
        assert _used(providers[0]) == CAPACITY
        assert _used(providers[1]) == CAPACITY
    finally:
        session.dispose()
        CONF.reset()


@pytest.mark.parametrize("backend", ["postgresql", "mysql"])
def test_a_consumer_type_made_by_another_transaction_meanwhile_is_found(backend):
    """The first claims of a new cloud race to make the INSTANCE consumer type; the loser's
    transaction began before the winner's commit (MySQL's snapshot) and must still find it."""
    import sqlalchemy

    from novalite.placement import consumer
    from tests import services
    with services.temporary_database(backend) as found:
        _configure(found)
        migration.db_sync()
        other = sqlalchemy.create_engine(found)
        try:
            with session.writer() as s:
                assert s.scalar(sqlalchemy.select(consumer.CTYPE.c.id)) is None
                with other.begin() as conn:
                    conn.execute(sqlalchemy.insert(consumer.CTYPE).values(name="INSTANCE"))
                made = consumer.type_id(s, "INSTANCE")
            with other.connect() as conn:
                assert made == conn.scalar(sqlalchemy.select(consumer.CTYPE.c.id))
        finally:
            other.dispose()
            session.dispose()
            CONF.reset()
