"""A port's status as Neutron's agents make it: in a cloud of real guests a bound port is
DOWN until its host reports it wired, ACTIVE after, DOWN again when bound elsewhere; in a
simulated cloud bound means ACTIVE. The report is the service user's alone."""

from __future__ import annotations

import httpx
import pytest

from novalite.identity import bootstrap


@pytest.fixture
def net(cloud):
    return httpx.Client(base_url=f"{cloud.base_url}/networking/v2.0", timeout=30)


def _private(net: httpx.Client) -> str:
    found: str = net.get("/networks", params={"name": "private"}).json()["networks"][0]["id"]
    return found


def _bound_port(net: httpx.Client, host: str) -> dict:
    made = net.post("/ports", json={"port": {
        "network_id": _private(net), "binding:host_id": host,
        "device_owner": "compute:nova"}})
    assert made.status_code == 201, made.text
    port: dict = made.json()["port"]
    return port


def test_a_simulated_clouds_bound_port_is_active_at_once(net):
    assert _bound_port(net, "h1")["status"] == "ACTIVE"


def test_a_real_clouds_port_waits_for_its_host_to_report_it_wired(net, conf):
    conf.set_override("network_node", True, group="datapath")
    port = _bound_port(net, "h1")
    assert port["status"] == "DOWN"
    shown = lambda: net.get(f"/ports/{port['id']}").json()["port"]  # noqa: E731

    refused = net.post("/hosts/h2/devices_up", json={"devices": [port["id"], "gone"]})
    assert refused.json() == {"devices_up": [], "failed_devices_up": [port["id"], "gone"]}
    assert shown()["status"] == "DOWN"
    reported = net.post("/hosts/h1/devices_up", json={"devices": [port["id"]]})
    assert reported.json() == {"devices_up": [port["id"]], "failed_devices_up": []}
    assert shown()["status"] == "ACTIVE"
    assert shown()["revision_number"] > port["revision_number"]

    net.put(f"/ports/{port['id']}", json={"port": {"name": "renamed"}})
    assert shown()["status"] == "ACTIVE"  # still wired where it is bound
    net.put(f"/ports/{port['id']}", json={"port": {"binding:host_id": "h2"}})
    assert shown()["status"] == "DOWN"  # until h2 says it wired it


def test_only_the_service_user_reports_devices_and_in_the_right_shape(net):
    demo = bootstrap.project_ids("demo")[0]
    user = httpx.Client(base_url=str(net.base_url), timeout=30,
                        headers={"X-Auth-Token": f"demo:{demo}"})
    denied = user.post("/hosts/h1/devices_up", json={"devices": []})
    assert denied.status_code == 403
    assert denied.json()["NeutronError"]["type"] == "PolicyNotAuthorized"
    bad = net.post("/hosts/h1/devices_up", json={"devices": "p1"})
    assert bad.status_code == 400 and "devices" in bad.json()["NeutronError"]["message"]
