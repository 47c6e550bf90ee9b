"""Real guests moved between two `novalite-compute` processes, c1 and c2, each with its
own configuration file and instances_path as two machines would have, beside the API,
conductor and scheduler processes on RabbitMQ and PostgreSQL: a cold migration confirmed
(the disk pulled over NBD from the other process) and a live migration back without a
reboot. Then a compute is killed while a cold migration is under way and started again:
the server ends where Nova would leave it (back on its source, or ERROR with a fault),
no allocation is left without its server, and no half-copied guest is left behind."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from novalite.db import migration
from novalite.image import db as images
from novalite.virt.qemu.guest_image import MARKER
from tests import services
from tests.topology import Topology

NANO = "42"
# The guest's user data stops its acpid: deaf to the power button, it makes the source's
# power-off wait out shutdown_timeout, so the hand-over (resize_migrating) lasts long
# enough to be seen and cut short, rather than the blink a polling test may miss.
DEAF = "NOVALITE-TEST-DEAF-TO-ACPI"
DEAF_GUEST = {"config_drive": True, "user_data": base64.b64encode(
    f"#!/bin/sh\nkillall acpid\necho {DEAF}\n".encode()).decode()}
COMPUTES = ("c1", "c2")
LIVE = {"X-OpenStack-Nova-API-Version": "2.80"}
TIMEOUT = 180  # TCG guests on a loaded 2-core machine


@pytest.fixture
def qemu_topology(tmp_path, rabbit_vhost):
    services.require_qemu()
    with services.temporary_database("postgresql") as url:
        topo = Topology(tmp_path, rabbit_vhost, url)
        with topo.config.open("a") as config:
            config.write("[DEFAULT]\ncompute_driver = qemu\nshutdown_timeout = 30\n"
                         "[libvirt]\nvirt_type = qemu\n")
        try:
            yield topo
        finally:
            _delete_all(topo)  # a guest outlives its compute by design
            topo.stop()
            for host in COMPUTES:
                services.kill_guests(str(_instances(topo, host)))


def _delete_all(topo: Topology) -> None:
    if topo.procs.get("api") is None or topo.procs["api"].poll() is not None:
        return
    for server in topo.api.get("/servers").json()["servers"]:
        topo.api.delete(f"/servers/{server['id']}")
    topo.wait(lambda: not topo.api.get("/servers").json()["servers"], timeout=TIMEOUT,
              what="every server deleted")


def _instances(topo: Topology, host: str) -> Path:
    return topo.workdir / host


def _start_compute(topo: Topology, host: str) -> None:
    own = topo.workdir / f"{host}.conf"
    own.write_text(f"[DEFAULT]\ninstances_path = {_instances(topo, host)}\n")
    topo.start(host, "novalite-compute", "--config-file", str(own), "--host", host)


def _start_all(topo: Topology) -> None:
    assert migration.head_revision() in topo.manage("db", "sync")
    topo.manage("db", "seed")  # builds the guest image (cached) and uploads it
    topo.start("api", "novalite-api")
    topo.wait(lambda: topo.api.get("/flavors").status_code == 200, what="the API answering")
    topo.start("conductor", "novalite-conductor")
    topo.start("scheduler", "novalite-scheduler")
    for host in COMPUTES:
        _start_compute(topo, host)
    topo.wait(lambda: len(topo.query("SELECT id FROM inventories")) == 6,
              what="two providers with inventory in placement")


def _server(topo: Topology, server_id: str) -> dict:
    return dict(topo.api.get(f"/servers/{server_id}").json()["server"])


def _settled(topo: Topology, server_id: str, *statuses: str) -> dict:
    return dict(topo.wait(lambda: (s := _server(topo, server_id))["status"] in statuses
                          and s["OS-EXT-STS:task_state"] is None and s,
                          timeout=TIMEOUT, what=f"{server_id} {'/'.join(statuses)}"))


def _console(topo: Topology, server_id: str) -> str:
    answer = topo.api.post(f"/servers/{server_id}/action", json={"os-getConsoleOutput": {}})
    return str(answer.json().get("output", "")) if answer.status_code == 200 else ""


def _booted(topo: Topology, server_id: str) -> str:
    return str(topo.wait(lambda: MARKER in (out := _console(topo, server_id)) and out,
                         timeout=TIMEOUT, what=f"{server_id}'s guest up"))


def _action(topo: Topology, server_id: str, body: dict, headers: dict | None = None) -> None:
    answer = topo.api.post(f"/servers/{server_id}/action", json=body, headers=headers or {})
    assert answer.status_code in (202, 204), answer.text


def _boot(topo: Topology, name: str, **server: object) -> str:
    made = topo.api.post("/servers", json={"server": {
        "name": name, "flavorRef": NANO, "imageRef": images.DEFAULT_IMAGE_ID, "networks": "none",
        **server}}, headers={"X-OpenStack-Nova-API-Version": "2.37"})
    assert made.status_code == 202, made.text
    server_id = str(made.json()["server"]["id"])
    _settled(topo, server_id, "ACTIVE")
    _booted(topo, server_id)
    return server_id


def _guest_dirs(topo: Topology, host: str) -> set[str]:
    found = _instances(topo, host)
    return {d.name for d in found.iterdir() if d.is_dir() and not d.name.startswith("_")} \
        if found.exists() else set()


def _audit_clean(topo: Topology) -> None:
    audit = topo.manage("placement", "audit", ok=(0, 3))
    assert "Found 0 problem(s)" in audit, audit


def test_real_guests_move_between_two_compute_processes(qemu_topology):
    topo = qemu_topology
    _start_all(topo)
    server_id = _boot(topo, "mover")
    source = _server(topo, server_id)["OS-EXT-SRV-ATTR:host"]
    target = next(h for h in COMPUTES if h != source)
    assert server_id in _guest_dirs(topo, source)

    _action(topo, server_id, {"migrate": None})
    moved = _settled(topo, server_id, "VERIFY_RESIZE")
    assert moved["OS-EXT-SRV-ATTR:host"] == target
    _booted(topo, server_id)  # the pulled disk boots on the other process's host
    _action(topo, server_id, {"confirmResize": None})
    _settled(topo, server_id, "ACTIVE")
    topo.wait(lambda: not {server_id, f"{server_id}_resize"} & _guest_dirs(topo, source),
              what="the source's copy removed")
    assert server_id in _guest_dirs(topo, target)

    _action(topo, server_id, {"os-migrateLive": {"host": None, "block_migration": "auto"}},
            LIVE)
    back = _settled(topo, server_id, "ACTIVE")
    assert (back["OS-EXT-SRV-ATTR:host"], back["OS-EXT-STS:power_state"]) == (source, 1)
    assert MARKER not in _console(topo, server_id)  # no boot on arrival: it kept running
    _audit_clean(topo)


@pytest.mark.parametrize(("victim", "moment"), [
    ("destination", ()), ("destination", ("resize_migrated", "resize_finish")),
    ("source", ("resize_migrating",))],
    ids=["destination-as-the-move-starts", "destination-as-it-finishes",
         "source-as-it-hands-over"])
def test_a_compute_killed_mid_move_leaves_nothing_behind(qemu_topology, victim, moment):
    """A destination killed before it took the move: its successor takes it from the
    queue. Killed while finishing it, or the source killed while handing the guest over:
    the successor finds the move where it was and sends the server back to its source.
    Either way the server ends on one host with one allocation and one guest directory."""
    topo = qemu_topology
    _start_all(topo)
    server_id = _boot(topo, "victim", **(DEAF_GUEST if victim == "source" else {}))
    if victim == "source":
        topo.wait(lambda: DEAF in _console(topo, server_id), timeout=TIMEOUT,
                  what="the guest deaf to its power button")
    source = _server(topo, server_id)["OS-EXT-SRV-ATTR:host"]
    killed = source if victim == "source" else next(h for h in COMPUTES if h != source)

    _action(topo, server_id, {"migrate": None})
    if moment:
        topo.wait(lambda: _server(topo, server_id)["OS-EXT-STS:task_state"] in moment,
                  timeout=TIMEOUT, what=f"the move reaching {'/'.join(moment)}")
    topo.procs.pop(killed).kill()
    _start_compute(topo, killed)

    ended = _settled(topo, server_id, "ACTIVE", "ERROR", "VERIFY_RESIZE")
    if ended["status"] == "VERIFY_RESIZE":
        _booted(topo, server_id)
        _action(topo, server_id, {"confirmResize": None})
        ended = _settled(topo, server_id, "ACTIVE")
    if ended["status"] == "ERROR":
        assert ended["fault"]["message"], ended
    elif moment:  # sent back
        assert ended["OS-EXT-SRV-ATTR:host"] == source
        assert ended["OS-EXT-STS:power_state"] == 1
    host = ended["OS-EXT-SRV-ATTR:host"]
    elsewhere = next(h for h in COMPUTES if h != host)
    topo.wait(lambda: not {server_id, f"{server_id}_resize"} & _guest_dirs(topo, elsewhere),
              timeout=TIMEOUT, what="no copy left on the other host")
    assert f"{server_id}_resize" not in _guest_dirs(topo, host)
    _audit_clean(topo)
