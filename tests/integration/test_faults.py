"""Faults during a boot storm on the distributed cloud (real processes over RabbitMQ and
PostgreSQL or MariaDB): after the fault and the restart of what died, every accepted server
ends ACTIVE or ERROR with a fault within a bounded time, and placement holds exactly the
flavors of the live servers. Loopback only; the shared RabbitMQ is never stopped."""

from __future__ import annotations

import os
import signal
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from novalite.db import migration
from novalite.image import db as images

SERVERS = int(os.environ.get("NOVALITE_FAULT_SERVERS", "100"))
COMPUTES = ("compute1", "compute2", "compute3")
WATCHDOG = 15  # [conductor] build_watchdog_timeout for the test, seconds
RECOVERY = 120  # the bound after the restart, seconds


def _start(topo) -> None:
    with topo.config.open("a") as config:
        config.write(f"[conductor]\nbuild_watchdog_timeout = {WATCHDOG}\n"
                     "build_watchdog_interval = 2\n"
                     "[quota]\ninstances = -1\ncores = -1\nram = -1\n")
    assert migration.head_revision() in topo.manage("db", "sync")
    topo.manage("db", "seed")
    topo.start("api", "novalite-api")
    topo.wait(lambda: topo.api.get("/flavors").status_code == 200, what="the API answering")
    topo.start("conductor", "novalite-conductor")
    topo.start("scheduler", "novalite-scheduler")
    for host in COMPUTES:
        topo.start(host, "novalite-compute", "--host", host)
    topo.wait(lambda: len(topo.query("SELECT id FROM inventories")) == 3 * len(COMPUTES),
              what="every compute reporting to placement")


def _storm(topo, fault) -> list[str]:
    """Boot SERVERS servers from 16 clients; `fault()` runs once a third were accepted."""
    accepted: list[str] = []

    def boot(i: int) -> None:
        response = topo.api.post("/servers", json={"server": {
            "name": f"storm-{i}", "flavorRef": "1", "imageRef": images.DEFAULT_IMAGE_ID}})
        assert response.status_code in (202, 503), response.text
        if response.status_code == 202:
            accepted.append(response.json()["server"]["id"])
        if i == SERVERS // 3:
            fault()

    with ThreadPoolExecutor(16) as pool:
        list(pool.map(boot, range(SERVERS)))
    return accepted


def _kill_and_restart(topo, name: str, binary: str, *args: str):
    def fault() -> None:
        topo.procs.pop(name).send_signal(signal.SIGKILL)
        time.sleep(2)
        topo.start(name, binary, *args)
    return fault


def _assert_settled(topo, accepted: list[str]) -> None:
    def settled():
        rows = topo.query("SELECT uuid, vm_state FROM instances WHERE deleted = 0")
        return all(state in ("active", "error") for _, state in rows) and rows

    rows = dict(topo.wait(settled, timeout=RECOVERY, what="every server settled"))
    assert set(accepted) <= set(rows)  # every 202 accounted for
    without_fault = topo.query(
        "SELECT i.uuid FROM instances i WHERE i.deleted = 0 AND i.vm_state = 'error' AND NOT "
        "EXISTS (SELECT 1 FROM instance_faults f WHERE f.instance_uuid = i.uuid "
        "AND f.message <> '')")
    assert without_fault == []
    active = sum(1 for state in rows.values() if state == "active")
    topo.wait(lambda: topo.query(
        "SELECT COALESCE(SUM(a.used), 0) FROM allocations a JOIN resource_classes rc "
        "ON rc.id = a.resource_class_id WHERE rc.name = 'MEMORY_MB'")[0][0] == 512 * active,
        timeout=30, what="placement holding exactly the live servers' flavors")
    per_host = topo.query(
        "SELECT i.host, COUNT(*) FROM instances i WHERE i.deleted = 0 AND "
        "i.vm_state = 'active' GROUP BY i.host")
    used = dict(topo.query(
        "SELECT rp.name, SUM(a.used) FROM allocations a JOIN resource_providers rp ON "
        "rp.id = a.resource_provider_id JOIN resource_classes rc ON "
        "rc.id = a.resource_class_id WHERE rc.name = 'MEMORY_MB' GROUP BY rp.name"))
    assert {host: 512 * count for host, count in per_host} == {
        host: int(memory) for host, memory in used.items() if memory}
    assert "Found 0 problem(s)" in topo.manage("placement", "audit")


@pytest.mark.parametrize("victim", ["conductor", "compute2"])
def test_a_service_killed_during_a_storm_leaves_nothing_stuck_or_leaked(topology, victim):
    topo = topology
    _start(topo)
    binary, args = (("novalite-conductor", ()) if victim == "conductor"
                    else ("novalite-compute", ("--host", victim)))
    accepted = _storm(topo, _kill_and_restart(topo, victim, binary, *args))
    assert accepted
    _assert_settled(topo, accepted)
