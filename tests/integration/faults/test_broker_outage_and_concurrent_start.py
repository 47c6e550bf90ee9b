"""A 15 s broker outage during a storm (a TCP relay this test owns in front of the shared
RabbitMQ, which is never stopped), and services of one kind started at once."""

from __future__ import annotations

import pytest

from novalite.db import migration
from tests import fault_storm
from tests.relay import Relay
from tests.topology import Topology


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_a_broker_outage_during_a_storm_leaves_nothing_stuck(tmp_path, rabbit_vhost,
                                                             database_url):
    relay = Relay(5672)
    vhost = rabbit_vhost.rsplit("/", 1)[1]
    topo = Topology(tmp_path, f"rabbit://guest:guest@127.0.0.1:{relay.port}/{vhost}",
                    database_url)
    try:
        fault_storm.assert_recovers(topo, fault_storm.broker_outage(relay))
    finally:
        topo.stop()
        relay.cut()


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_conductors_and_schedulers_started_at_once_all_come_up(topology):
    """Their service records are made concurrently: none may fail on the duplicate."""
    topo = topology
    assert migration.head_revision() in topo.manage("db", "sync")
    for name in ("conductor", "conductor-b", "scheduler", "scheduler-b"):
        topo.start(name, f"novalite-{name.split('-')[0]}")
    topo.wait(lambda: all(f"Started novalite-{name.split('-')[0]}" in topo.log(name)
                          for name in topo.procs), timeout=90, what="all four started")
    assert sorted(topo.query(
        'SELECT "binary", COUNT(*) FROM services WHERE deleted = 0 GROUP BY "binary"')) \
        == [("novalite-conductor", 1), ("novalite-scheduler", 1)]
