"""The distributed cloud: api, conductor, scheduler and three computes as separate
processes over RabbitMQ, sharing PostgreSQL or MariaDB."""

from __future__ import annotations

import collections
from concurrent.futures import ThreadPoolExecutor

from websockets.sync.client import connect

from novalite.db import migration
from novalite.image import db as images
from tests.console_urls import websocket_url
from tests.waiting import wait_for

COMPUTES = ("compute1", "compute2", "compute3")


def _start_all(topo) -> None:
    assert migration.head_revision() in topo.manage("db", "sync")
    topo.start("api", "novalite-api")  # it serves placement, which computes report to
    topo.wait(lambda: topo.api.get("/flavors").status_code == 200, what="the API answering")
    topo.start("conductor", "novalite-conductor")
    topo.start("scheduler", "novalite-scheduler")
    for host in COMPUTES:
        topo.start(host, "novalite-compute", "--host", host)
    topo.wait(lambda: len(topo.query("SELECT id FROM compute_nodes WHERE deleted = 0")) == 3,
              what="three compute nodes reporting")
    topo.wait(lambda: len(topo.query("SELECT id FROM inventories")) == 9,
              what="three providers with inventory in placement")



def test_boot_and_delete_across_processes(topology):
    topo = topology
    _start_all(topo)
    # seeding is an operator step in a distributed cloud; the all-in-one does it itself
    topo.manage("db", "seed")
    body = {"server": {"name": "dist", "flavorRef": "1", "imageRef": images.DEFAULT_IMAGE_ID,
                       "min_count": 6, "max_count": 6}}
    response = topo.api.post("/servers", json=body)
    assert response.status_code == 202, response.text
    request_id = response.headers["x-openstack-request-id"]

    def all_active():
        servers = topo.api.get("/servers/detail").json()["servers"]
        return len(servers) == 6 and all(s["status"] == "ACTIVE" for s in servers) and servers

    servers = topo.wait(all_active, what="six servers ACTIVE")
    per_host = collections.Counter(s["OS-EXT-SRV-ATTR:host"] for s in servers)
    assert set(per_host) == set(COMPUTES) and set(per_host.values()) == {2}

    # the request id of the POST is in every service's log line for that work
    for name in ("conductor", "scheduler", *COMPUTES):
        assert request_id in topo.log(name), name

    _console_reaches_the_guests_compute(topo, servers[0]["id"])

    for server in servers:
        assert topo.api.delete(f"/servers/{server['id']}").status_code == 204
    topo.wait(lambda: topo.api.get("/servers").json()["servers"] == [], what="all deleted")
    topo.wait(lambda: all(row[0] == 0 for row in topo.query(
        "SELECT memory_mb_used FROM compute_nodes")), what="resources freed")
    assert topo.query("SELECT COUNT(*) FROM instances WHERE deleted = 0")[0][0] == 0

    codes = topo.stop()
    assert set(codes.values()) == {0}, codes  # every service shut down gracefully


def _console_reaches_the_guests_compute(topo, server_id: str) -> None:
    """The API asks the compute over RabbitMQ where the console is (a typed endpoint, or
    Nova's exception for a type it does not offer) and its proxy relays to that process."""
    def console(protocol: str, type_: str):
        return topo.api.post(f"/servers/{server_id}/remote-consoles",
                             headers={"X-OpenStack-Nova-API-Version": "2.6"},
                             json={"remote_console": {"protocol": protocol, "type": type_}})

    url = console("vnc", "novnc").json()["remote_console"]["url"]
    with connect(websocket_url(url)) as ws:
        assert ws.recv(timeout=10) == b"RFB 003.008\n"
    refused = console("serial", "serial")
    assert (refused.status_code, refused.json()["badRequest"]["message"]) == (
        400, "Unavailable console type serial.")


def test_a_service_started_before_the_broker_retries_with_a_clear_log(tmp_path, database_url):
    from tests.topology import Topology

    topo = Topology(tmp_path, "rabbit://guest:guest@127.0.0.1:1/", database_url)
    topo.manage("db", "sync")
    topo.start("conductor", "novalite-conductor")
    wait_for(lambda: "unreachable" in topo.log("conductor"), timeout=20, interval=0.2,
             what="the conductor's log of the unreachable broker")
    log = topo.log("conductor")
    assert topo.procs["conductor"].poll() is None, log  # still running, still trying
    assert "127.0.0.1:1 is unreachable" in log and "Trying again in" in log
    topo.stop()


def test_two_schedulers_never_overcommit_a_host(topology):
    """Two scheduler workers answer concurrent boots with their own cached host states;
    placement's claims keep every host within its capacity (a refused claim moves the
    choice on), and what does not fit ends in ERROR with a fault."""
    topo = topology
    with topo.config.open("a") as config:  # two hosts of three m1.tiny (512 MiB) each
        config.write("[fake_driver]\nmemory_mb = 2048\n")
    assert migration.head_revision() in topo.manage("db", "sync")
    topo.manage("db", "seed")
    topo.start("api", "novalite-api")  # it serves placement, which computes report to
    topo.wait(lambda: topo.api.get("/flavors").status_code == 200, what="the API answering")
    topo.start("conductor", "novalite-conductor")
    for name in ("scheduler-a", "scheduler-b"):  # a later --config-file overrides
        (topo.workdir / f"{name}.conf").write_text(f"[DEFAULT]\nhost = {name}\n")
        topo.start(name, "novalite-scheduler", "--config-file",
                   str(topo.workdir / f"{name}.conf"))
    for host in COMPUTES[:2]:
        topo.start(host, "novalite-compute", "--host", host)
    topo.wait(lambda: len(topo.query("SELECT id FROM inventories")) == 6,
              what="two compute nodes reporting to placement")
    # a service records itself once its RPC server consumes: both workers must be taking
    # requests before the boots start, or one of them may get them all
    topo.wait(lambda: {"scheduler-a", "scheduler-b"} <= {
        host for (host,) in topo.query("SELECT host FROM services")},
        what="both schedulers consuming")

    def boot(i):
        body = {"server": {"name": f"race-{i}", "flavorRef": "1",
                           "imageRef": images.DEFAULT_IMAGE_ID}}
        response = topo.api.post("/servers", json=body)
        assert response.status_code == 202, response.text

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(boot, range(9)))

    def settled():
        servers = topo.api.get("/servers/detail").json()["servers"]
        return all(s["status"] in ("ACTIVE", "ERROR") for s in servers) and servers

    servers = topo.wait(settled, what="every boot settled")
    per_host = collections.Counter(s["OS-EXT-SRV-ATTR:host"] for s in servers
                                   if s["status"] == "ACTIVE")
    assert per_host == {"compute1": 3, "compute2": 3}
    for server in servers:
        if server["status"] == "ERROR":  # no host left, or every alternate lost its race
            assert any(reason in server["fault"]["message"] for reason in (
                "No valid host", "Exceeded maximum number of retries")), server["fault"]
    for used, total in topo.query("SELECT memory_mb_used, memory_mb - reserved_host_memory_mb"
                                  " FROM compute_nodes"):
        assert used <= total
    claimed = topo.query("SELECT a.resource_provider_id, SUM(a.used) FROM allocations a "
                         "JOIN resource_classes rc ON rc.id = a.resource_class_id "
                         "WHERE rc.name = 'MEMORY_MB' GROUP BY a.resource_provider_id")
    assert sorted(int(used) for _, used in claimed) == [1536, 1536]  # 3 x 512 per host
    # both workers took requests (the topic's queue is shared between them)
    assert "select_destinations" in topo.log("scheduler-a")
    assert "select_destinations" in topo.log("scheduler-b")
