"""Servers on networks, through the compute API of the all-in-one: ports made at the
API, bound by the compute, shown in `addresses`, cleaned up on delete; refusals leave
nothing behind."""

from __future__ import annotations

import httpx
import pytest

from novalite.identity import bootstrap
from novalite.image import db as images


@pytest.fixture
def demo(cloud):
    """The demo project's compute and network clients (it owns `private`)."""
    project = bootstrap.project_ids("demo")[0]
    headers = {"X-Auth-Token": f"demo:{project}", "X-OpenStack-Nova-API-Version": "2.37"}
    compute = httpx.Client(base_url=f"{cloud.base_url}/compute/v2.1", timeout=30,
                           headers=headers)
    network = httpx.Client(base_url=f"{cloud.base_url}/networking/v2.0", timeout=30,
                           headers=headers)
    private = network.get("/networks", params={"name": "private"}).json()["networks"][0]
    return compute, network, private


def _boot(compute: httpx.Client, networks, **server) -> httpx.Response:
    return compute.post("/servers", json={"server": {
        "name": "vm", "flavorRef": "1", "imageRef": images.DEFAULT_IMAGE_ID,
        "networks": networks, **server}})


def _active(cloud, compute: httpx.Client, server_id: str) -> dict:
    return cloud.wait(lambda: (s := compute.get(f"/servers/{server_id}").json()["server"])[
        "status"] == "ACTIVE" and s)


def test_boot_on_private_gets_a_bound_port_and_an_address(cloud, demo):
    compute, network, private = demo
    made = _boot(compute, [{"uuid": private["id"]}])
    assert made.status_code == 202, made.text
    server = _active(cloud, compute, made.json()["server"]["id"])
    (address,) = server["addresses"]["private"]
    assert address["addr"].startswith("10.0.0.") and address["OS-EXT-IPS:type"] == "fixed"
    ports = network.get("/ports", params={"device_id": server["id"]}).json()["ports"]
    assert len(ports) == 1 and ports[0]["mac_address"] == address["OS-EXT-IPS-MAC:mac_addr"]
    admin_view = httpx.get(f"{cloud.base_url}/networking/v2.0/ports/{ports[0]['id']}").json()
    assert admin_view["port"]["binding:host_id"] in ("compute1", "compute2")
    assert admin_view["port"]["status"] == "ACTIVE"
    assert admin_view["port"]["device_owner"] == "compute:nova"
    assert compute.delete(f"/servers/{server['id']}").status_code == 204
    cloud.wait(lambda: compute.get(f"/servers/{server['id']}").status_code == 404)
    assert network.get("/ports", params={"device_id": server["id"]}).json()["ports"] == []


def test_auto_picks_the_only_network_and_none_gives_none(cloud, demo):
    compute, _, _ = demo
    auto = _active(cloud, compute, _boot(compute, "auto").json()["server"]["id"])
    assert list(auto["addresses"]) == ["private"]
    none = _active(cloud, compute, _boot(compute, "none").json()["server"]["id"])
    assert none["addresses"] == {}


def test_user_port_is_kept_and_unbound_on_delete(cloud, demo):
    compute, network, private = demo
    port = network.post("/ports", json={"port": {"network_id": private["id"]}}).json()["port"]
    server = _active(cloud, compute, _boot(compute, [{"port": port["id"]}]).json()[
        "server"]["id"])
    assert server["addresses"]["private"][0]["addr"] == port["fixed_ips"][0]["ip_address"]
    in_use = _boot(compute, [{"port": port["id"]}])
    assert in_use.status_code == 409 and "still in use" in in_use.text
    compute.delete(f"/servers/{server['id']}")
    cloud.wait(lambda: compute.get(f"/servers/{server['id']}").status_code == 404)
    kept = network.get(f"/ports/{port['id']}").json()["port"]
    assert kept["device_id"] == "" and kept["device_owner"] == ""


def test_refused_creates_leave_no_port(cloud, demo):
    compute, network, private = demo
    before = len(network.get("/ports").json()["ports"])
    taken = network.get("/ports", params={"network_id": private["id"]}).json()["ports"][0]
    refused = _boot(compute, [{"uuid": private["id"]},
                              {"uuid": private["id"],
                               "fixed_ip": taken["fixed_ips"][0]["ip_address"]}])
    assert refused.status_code == 400 and "already in use" in refused.text
    outside = _boot(compute, [{"uuid": private["id"], "fixed_ip": "192.168.99.9"}])
    assert outside.status_code == 400, outside.text
    missing = _boot(compute, [{"uuid": "5ad1c7e4-7a47-4e42-9cc4-1bd3f8dbd0a7"}])
    assert missing.status_code == 400 and "could not be found" in missing.text
    assert len(network.get("/ports").json()["ports"]) == before
    servers = compute.get("/servers").json()["servers"]
    assert servers == []
