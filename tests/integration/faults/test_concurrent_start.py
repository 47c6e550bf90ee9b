"""Services of one kind started at once. (A broker outage during a storm is measured by
benchmarks/faults.py: in CI, on a loaded machine, it still leaks an allocation.)"""

from __future__ import annotations

import pytest

from novalite.db import migration


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
