"""The distributed cloud with placement as a process of its own (novalite-placement): the
computes register their providers there before novalite-api even runs, and the
scheduler's candidates and claims and the deletes' releases go there too."""

from __future__ import annotations

import pytest

from novalite.db import migration
from novalite.image import db as images
from tests.integration.test_distributed import COMPUTES

TINY = {"VCPU": 1, "MEMORY_MB": 512, "DISK_GB": 1}


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_servers_boot_and_go_with_placement_in_its_own_process(topology):
    topo = topology
    assert migration.head_revision() in topo.manage("db", "sync")
    topo.manage("db", "seed")
    placement = topo.separate_placement()
    topo.start("conductor", "novalite-conductor")
    topo.start("scheduler", "novalite-scheduler")
    for host in COMPUTES:
        topo.start(host, "novalite-compute", "--host", host)
    providers = topo.wait(lambda: len(found := placement.get(
        "/resource_providers").json()["resource_providers"]) == 3 and found,
        what="three providers registered with no novalite-api running")
    assert {p["name"] for p in providers} == set(COMPUTES)

    topo.start("api", "novalite-api")
    topo.wait(lambda: topo.api.get("/flavors").status_code == 200, what="the API answering")
    made = topo.api.post("/servers", json={"server": {
        "name": "apart", "flavorRef": "1", "imageRef": images.DEFAULT_IMAGE_ID,
        "min_count": 3, "max_count": 3}})
    assert made.status_code == 202, made.text

    def all_active():
        servers = topo.api.get("/servers/detail").json()["servers"]
        return len(servers) == 3 and all(s["status"] == "ACTIVE" for s in servers) and servers

    servers = topo.wait(all_active, what="three servers ACTIVE")
    for server in servers:
        held = placement.get(f"/allocations/{server['id']}").json()["allocations"]
        assert [a["resources"] for a in held.values()] == [TINY], server["id"]

    for server in servers:
        assert topo.api.delete(f"/servers/{server['id']}").status_code == 204
    topo.wait(lambda: topo.api.get("/servers").json()["servers"] == [], what="all deleted")
    for server in servers:
        assert placement.get(f"/allocations/{server['id']}").json()["allocations"] == {}
    codes = topo.stop()
    assert set(codes.values()) == {0}, codes
