"""Service records on each backend: services of one name starting together all get the
one record (the duplicate-key race of two inserts ends in a read, not a crash)."""

import datetime
import os
import stat
import threading
from concurrent.futures import ThreadPoolExecutor

from sqlalchemy import update

from novalite.conf import CONF
from novalite.db import migration, models, session
from novalite.db.api import services
from tests.statements import sqlite_plan


def test_services_starting_together_share_one_record(backend_db):
    start = threading.Barrier(8)

    def register(_):
        start.wait(timeout=10)
        return services.service_get_or_create("host-a", "novalite-conductor", "conductor")

    with ThreadPoolExecutor(8) as pool:
        records = list(pool.map(register, range(8)))
    assert len({record.id for record in records}) == 1
    assert len(services.service_get_all("novalite-conductor")) == 1


def test_the_sqlite_database_is_readable_by_its_owner_only(conf):
    migration.db_sync()
    path = os.path.join(CONF.state_path, "novalite.sqlite")
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600


def test_the_bulk_read_gives_what_the_single_read_gives(backend_db):
    made = services.service_get_or_create("host-a", "novalite-compute", "compute")
    assert services.service_get_all("novalite-compute") == [services.service_get(made.id)]


def test_the_services_of_named_hosts_are_read_alone(backend_db):
    """A server's host status reads its host's service, not every compute's."""
    made = {host: services.service_get_or_create(host, "novalite-compute", "compute")
            for host in ("host-a", "host-b", "host-c")}
    services.service_get_or_create("host-a", "novalite-conductor", "conductor")
    services.service_destroy(made["host-c"].id)
    found = services.service_get_by_hosts(["host-b", "host-a", "host-c", "host-x", "host-a"],
                                          "novalite-compute")
    assert sorted(found, key=lambda svc: svc.host) == [
        services.service_get(made["host-a"].id), services.service_get(made["host-b"].id)]
    assert services.service_get_by_hosts([], "novalite-compute") == []


def test_many_hosts_register_together_and_find_their_records_again(backend_db, monkeypatch):
    """A compute process simulating thousands of hosts registers them in a few
    transactions; hosts named twice or registered before get their one record."""
    monkeypatch.setattr(session, "IN_CHUNK", 2)
    before = services.service_get_or_create("h2", "novalite-compute", "compute")
    services.service_get_or_create("h1", "novalite-conductor", "conductor")
    made = services.service_get_or_create_many(["h1", "h2", "h3", "h1", "h4", "h5"],
                                               "novalite-compute", "compute")
    assert [svc.host for svc in made] == ["h1", "h2", "h3", "h1", "h4", "h5"]
    assert made[1].id == before.id and made[0] == made[3]
    assert all(svc.binary == "novalite-compute" and svc.topic == "compute" for svc in made)
    again = services.service_get_or_create_many(["h5", "h1"], "novalite-compute", None)
    assert [svc.id for svc in again] == [made[5].id, made[0].id]
    assert len(services.service_get_all("novalite-compute")) == 5


def test_one_heartbeat_renews_many_records_and_names_those_gone(backend_db, monkeypatch):
    monkeypatch.setattr(session, "IN_CHUNK", 2)  # several statements in one beat
    ids = [services.service_get_or_create(f"host-{i}", "novalite-compute", "compute").id
           for i in range(5)]
    services.service_destroy(ids[3])
    assert services.service_heartbeat([*ids, ids[0], 99999]) == [ids[3], 99999]
    counts = {s.id: s.report_count for s in services.service_get_all("novalite-compute")}
    assert counts == {ids[0]: 1, ids[1]: 1, ids[2]: 1, ids[4]: 1}


def test_a_changed_read_leaves_out_the_rows_it_gave_before(backend_db):
    """The scheduler's refresh re-reads recent heartbeats: only a new beat, an enable
    or a disable, or a new service comes back."""
    since = datetime.datetime(2000, 1, 1)
    known: dict = {}
    made = [services.service_get_or_create(host, "novalite-compute", "compute")
            for host in ("a", "b")]
    first = services.service_get_all("novalite-compute", changed_since=since, known=known)
    assert sorted(s.host for s in first) == ["a", "b"]
    assert services.service_get_all("novalite-compute", changed_since=since,
                                    known=known) == []
    services.service_heartbeat([made[1].id])
    [beaten] = services.service_get_all("novalite-compute", changed_since=since, known=known)
    assert beaten == services.service_get(made[1].id)
    assert beaten.report_count == made[1].report_count + 1



def test_a_changed_read_finds_a_service_stamped_after_its_moment_in_the_same_second(
        backend_db):
    """As for compute nodes: a heartbeat stamped at .7 of a second is stored at .0 on
    MariaDB, and a read of what changed since .5 of that second must find it."""
    services.service_get_or_create("host-a", "novalite-compute", "compute")
    second = datetime.datetime(2030, 1, 1, 12, 0, 0)
    with session.writer() as s:
        s.execute(update(models.Service).values(
            updated_at=second.replace(microsecond=700_000)))
    changed = services.service_get_all("novalite-compute",
                                       changed_since=second.replace(microsecond=500_000))
    assert [svc.host for svc in changed] == ["host-a"]

def test_a_changed_read_searches_the_stamps_rather_than_every_service(db):
    """SQLite's plan for the refresh's read: at 10,000 services a scan of every row cost
    each scheduling decision 1.5 ms of CPU, most often to find none."""
    plan = sqlite_plan(db, services._ALL[True, True],
                       {"binary": "novalite-compute", "since": datetime.datetime(2000, 1, 1)})
    assert "USING INDEX ix_services_updated_at" in plan, plan
    assert "USING INDEX ix_services_created_at" in plan, plan
    assert "SCAN services" not in plan, plan
