"""Scheduler hints from the API to the filters, through the running cloud."""

import json
import re

import pytest


@pytest.fixture
def hinted_cloud(conf, cloud_factory):
    conf.set_override("enabled_filters", ["ComputeFilter", "RamFilter", "SameHostFilter",
                                          "DifferentHostFilter", "JsonFilter"],
                      group="filter_scheduler")
    return cloud_factory(hosts=3)


def _host(cloud, server_id):
    return cloud.wait_status(server_id, "ACTIVE", "ERROR")["OS-EXT-SRV-ATTR:host"]


def test_same_and_different_host_hints(hinted_cloud):
    cloud = hinted_cloud
    first = cloud.boot("first")
    first_host = _host(cloud, first)
    near_host = _host(cloud, cloud.boot("near"))
    near = cloud.api.get("/servers", params={"name": "^near$"}).json()["servers"][0]["id"]
    # hints sit beside "server" in the body, as Nova takes them
    body = {"server": {"name": "with", "flavorRef": "1", "imageRef":
                       cloud.server(first)["image"]["id"]},
            "os:scheduler_hints": {"same_host": first}}
    same = cloud.api.post("/servers", json=body).json()["server"]["id"]
    body["os:scheduler_hints"] = {"different_host": [first, near]}
    apart = cloud.api.post("/servers", json=body).json()["server"]["id"]
    assert _host(cloud, same) == first_host
    assert _host(cloud, apart) not in {first_host, near_host}


def test_query_hint_that_no_host_satisfies_is_explained(hinted_cloud):
    cloud = hinted_cloud
    body = {"server": {"name": "picky", "flavorRef": "1",
                       "imageRef": "a3c0d5e6-7d1f-4b3a-9b8e-6e0c1f0a1a01"},
            "OS-SCH-HNT:scheduler_hints": {"query": json.dumps(
                [">=", "$free_ram_mb", 10 ** 9])}}
    server_id = cloud.api.post("/servers", json=body).json()["server"]["id"]
    fault = cloud.wait_status(server_id, "ERROR")["fault"]["message"]
    assert "JsonFilter removed 3 (compute1, compute2, compute3)" in fault


def test_requested_availability_zone_is_honoured_and_shown(cloud_factory):
    cloud = cloud_factory(hosts=3)
    # through the API, which mirrors the zone's hosts into placement
    rack = cloud.api.post("/os-aggregates", json={"aggregate": {
        "name": "rack-b", "availability_zone": "az-b"}}).json()["aggregate"]
    added = cloud.api.post(f"/os-aggregates/{rack['id']}/action",
                           json={"add_host": {"host": "compute3"}})
    assert added.status_code == 200, added.text
    server_id = cloud.boot("zoned", availability_zone="az-b")
    server = cloud.wait_status(server_id, "ACTIVE", "ERROR")
    assert server["OS-EXT-SRV-ATTR:host"] == "compute3"
    assert server["OS-EXT-AZ:availability_zone"] == "az-b"
    unzoned = cloud.wait_status(cloud.boot("default"), "ACTIVE")
    assert unzoned["OS-EXT-AZ:availability_zone"] == "nova"
    body = {"server": {"name": "nowhere", "flavorRef": "1", "availability_zone": "az-x",
                       "imageRef": server["image"]["id"]}}
    missing = cloud.api.post("/servers", json=body)
    assert missing.status_code == 400
    assert missing.json()["badRequest"]["message"] == (
        "The requested availability zone is not available")
    # a zone too small: the fault says placement was asked for the zone's aggregate only,
    # and that the zone's one host ran out of room
    crowded = cloud.boot("big", flavor="5", availability_zone="az-b", min_count=5,
                         max_count=5)
    fault = cloud.wait_status(crowded, "ERROR")["fault"]
    assert "1 hosts: placement claim removed 1 (compute3)." in fault["message"]
    assert re.search(r"Placement offered 1 hosts for .*member_of=in:[0-9a-f-]{36}",
                     fault["details"]), fault


def test_hosts_instances_reach_the_scheduler_from_the_computes(hinted_cloud, monkeypatch):
    """Once computes have reported their instances, hints are answered without reading
    the instances table (the scheduler's copy is kept by update/delete casts)."""
    from novalite.db.api import instances

    cloud = hinted_cloud
    first = cloud.boot("first")
    first_host = _host(cloud, first)

    def no_reads(hosts=None):
        raise AssertionError("the scheduler read the instances table")

    monkeypatch.setattr(instances, "instance_uuids_by_host", no_reads)
    image = cloud.server(first)["image"]["id"]
    body = {"server": {"name": "near", "flavorRef": "1", "imageRef": image},
            "os:scheduler_hints": {"same_host": first}}
    near = cloud.api.post("/servers", json=body).json()["server"]["id"]
    assert _host(cloud, near) == first_host
    assert cloud.api.delete(f"/servers/{first}").status_code == 204
    cloud.wait_gone(first)
    body = {"server": {"name": "late", "flavorRef": "1", "imageRef": image},
            "os:scheduler_hints": {"same_host": first}}
    late = cloud.api.post("/servers", json=body).json()["server"]["id"]
    fault = cloud.wait_status(late, "ERROR")["fault"]["message"]
    assert "SameHostFilter removed 3" in fault  # the delete reached the scheduler too


def test_the_scheduler_holds_every_host_before_the_first_boot(cloud_factory):
    """The all-in-one warms its scheduler once its computes registered: the first boot
    reads what changed since, not every host (Nova's host manager reads the cloud as it
    starts too)."""
    cloud = cloud_factory(hosts=3)
    table = cloud.aio.scheduler.manager.driver.host_manager.table
    assert sorted(state.host for state in table.states) == ["compute1", "compute2",
                                                             "compute3"]
