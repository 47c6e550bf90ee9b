"""os-interface attach and detach through real HTTP on the all-in-one (fake driver):
the server's compute binds the port and its driver plugs the NIC (and unplugs it on
detach, the port then given back), recorded as the instance's actions; refusals and
failures answer Nova's codes and texts and leave no port behind. Bodies are checked
against tempest's `interfaces` schemas."""

from __future__ import annotations

import httpx
import pytest

from novalite.db.api import actions
from novalite.identity import bootstrap
from novalite.image import db as images
from tests.functional.tempest_schemas import check

ADMIN = {"X-Auth-Token": "admin:demo-project"}


@pytest.fixture
def demo(cloud):
    """The demo project's compute and network clients, its `private` network and a
    second network of its own with a subnet."""
    project = bootstrap.project_ids("demo")[0]
    token = {"X-Auth-Token": f"demo:{project}"}

    def client(path: str) -> httpx.Client:
        return httpx.Client(base_url=f"{cloud.base_url}{path}", timeout=30, headers=token)

    network = client("/networking/v2.0")
    private = network.get("/networks", params={"name": "private"}).json()["networks"][0]
    second = network.post("/networks", json={"network": {"name": "second"}}).json()["network"]
    assert network.post("/subnets", json={"subnet": {
        "network_id": second["id"], "cidr": "10.77.0.0/24", "ip_version": 4}}
    ).status_code == 201
    return {"compute": client("/compute/v2.1"), "network": network,
            "private": private["id"], "second": second["id"]}


@pytest.fixture
def server(cloud, demo) -> str:
    made = demo["compute"].post("/servers", json={"server": {
        "name": "nics", "flavorRef": "1", "imageRef": images.DEFAULT_IMAGE_ID,
        "networks": [{"uuid": demo["private"]}]}})
    assert made.status_code == 202, made.text
    server_id = str(made.json()["server"]["id"])
    cloud.wait_status(server_id, "ACTIVE")
    return server_id


def _driver(cloud, server_id: str):
    host = cloud.server(server_id)["OS-EXT-SRV-ATTR:host"]
    return cloud.compute(host).driver


def _attach(demo, server_id: str, **attachment) -> httpx.Response:
    return demo["compute"].post(f"/servers/{server_id}/os-interface",
                                json={"interfaceAttachment": attachment})


def _detach(demo, server_id: str, port_id: str) -> httpx.Response:
    return demo["compute"].delete(f"/servers/{server_id}/os-interface/{port_id}")


def _fault(response: httpx.Response, code: int) -> str:
    assert response.status_code == code, response.text
    (body,) = response.json().values()
    return str(body["message"])


def _events(server_id: str, action: str) -> list[dict]:
    return [a for a in actions.actions_get(server_id) if a["action"] == action][0]["events"]


def _ports(demo, server_id: str) -> list[str]:
    return [p["id"] for p in demo["network"].get(
        "/ports", params={"device_id": server_id}).json()["ports"]]


def test_an_attached_interface_reaches_the_guest_and_a_detach_takes_it_out(cloud, demo,
                                                                           server):
    attached = check(_attach(demo, server, net_id=demo["second"]), "v2_1", "interfaces",
                     "get_create_interfaces")["interfaceAttachment"]
    port_id = attached["port_id"]
    driver = _driver(cloud, server)
    assert list(driver.nics[server]) == [port_id]
    port = demo["network"].get(f"/ports/{port_id}", headers=ADMIN).json()["port"]
    assert port["binding:host_id"] == cloud.server(server)["OS-EXT-SRV-ATTR:host"]
    assert "second" in cloud.server(server)["addresses"]
    assert [e["event"] for e in _events(server, "attach_interface")] == [
        "compute_attach_interface"]
    assert _events(server, "attach_interface")[0]["result"] == "Success"
    listed = check(demo["compute"].get(f"/servers/{server}/os-interface"), "v2_1",
                   "interfaces", "list_interfaces")["interfaceAttachments"]
    assert {i["net_id"] for i in listed} == {demo["private"], demo["second"]}

    check(_detach(demo, server, port_id), "v2_1", "interfaces", "delete_interface")
    cloud.settle()
    assert driver.nics[server] == {}
    assert demo["network"].get(f"/ports/{port_id}").status_code == 404  # Nova made it
    assert "second" not in cloud.server(server)["addresses"]
    assert _events(server, "detach_interface")[0]["result"] == "Success"


def test_the_users_port_is_released_not_deleted_and_a_stopped_guest_takes_one(cloud, demo,
                                                                              server):
    assert demo["compute"].post(f"/servers/{server}/action",
                                json={"os-stop": None}).status_code == 202
    cloud.wait_status(server, "SHUTOFF")
    port = demo["network"].post("/ports", json={"port": {"network_id": demo["second"]}}
                                ).json()["port"]
    attached = check(_attach(demo, server, port_id=port["id"]), "v2_1", "interfaces",
                     "get_create_interfaces")["interfaceAttachment"]
    assert attached["mac_addr"] == port["mac_address"]
    assert port["id"] in _driver(cloud, server).nics[server]
    assert _detach(demo, server, port["id"]).status_code == 202
    cloud.settle()
    kept = demo["network"].get(f"/ports/{port['id']}", headers=ADMIN).json()["port"]
    assert (kept["device_id"], kept["binding:host_id"]) == ("", "")


def test_an_attach_takes_a_network_without_a_subnet_and_a_port_without_an_address(
        cloud, demo, server):
    """Unlike a create (validate_networks), Nova's attach wants no address: the port is
    made, or claimed, without one."""
    network = demo["network"]
    nosub = network.post("/networks", json={"network": {"name": "nosub"}}).json()["network"]
    made = check(_attach(demo, server, net_id=nosub["id"]), "v2_1", "interfaces",
                 "get_create_interfaces")["interfaceAttachment"]
    assert made["fixed_ips"] == []
    bare = network.post("/ports", json={"port": {"network_id": demo["second"],
                                                 "fixed_ips": []}}).json()["port"]
    claimed = _attach(demo, server, port_id=bare["id"])
    assert claimed.status_code == 200, claimed.text
    assert set(_ports(demo, server)) >= {made["port_id"], bare["id"]}


def test_a_driver_that_fails_answers_500_and_leaves_no_port(cloud, demo, server,
                                                            monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("no free slot")

    monkeypatch.setattr(_driver(cloud, server), "attach_interface", broken)
    assert _fault(_attach(demo, server, net_id=demo["second"]), 500) == (
        f"Failed to attach network adapter device to {server}")
    mine = demo["network"].get("/ports", params={"network_id": demo["second"]}).json()
    assert mine["ports"] == []
    events = _events(server, "attach_interface")
    assert events[0]["result"] == "Error" and "no free slot" in events[0]["traceback"]
    brought = demo["network"].post("/ports", json={"port": {"network_id": demo["second"]}}
                                   ).json()["port"]
    assert _attach(demo, server, port_id=brought["id"]).status_code == 500
    assert demo["network"].get(f"/ports/{brought['id']}").json()["port"]["device_id"] == ""


def test_a_detach_the_guest_refuses_keeps_the_interface(cloud, demo, server, monkeypatch):
    port_id = _attach(demo, server, net_id=demo["second"]).json()[
        "interfaceAttachment"]["port_id"]

    def stuck(*args, **kwargs):
        raise TimeoutError("the guest did not release it")

    monkeypatch.setattr(_driver(cloud, server), "detach_interface", stuck)
    assert _detach(demo, server, port_id).status_code == 202
    cloud.settle()
    assert port_id in _ports(demo, server)
    events = _events(server, "detach_interface")
    assert events[0]["result"] == "Error"
    assert f"Failed to detach network adapter device from {server}" in events[0]["traceback"]


def test_refusals_answer_novas_codes_and_texts(cloud, demo, server):
    missing = "00000000-0000-4000-8000-000000000000"
    assert _fault(_attach(demo, server, port_id=missing), 404) == (
        f"Port id {missing} could not be found.")
    assert _fault(_attach(demo, server, net_id=missing), 404) == (
        f"Network {missing} could not be found.")
    assert _fault(_attach(demo, server, net_id=demo["second"], port_id=missing), 400) == (
        "Must not input both network_id and port_id")
    assert _fault(_attach(demo, server, port_id=missing,
                          fixed_ips=[{"ip_address": "10.77.0.9"}]), 400) == (
        "Must input network_id when request IP address")
    assert _fault(_detach(demo, server, missing), 404) == (
        f"Network interface {missing} could not be found for instance {server}.")
    assert _ports(demo, server) and len(_ports(demo, server)) == 1


def test_a_locked_or_suspended_server_and_an_old_compute_refuse_with_409(cloud, demo,
                                                                         server, conf):
    port_id = _ports(demo, server)[0]
    assert demo["compute"].post(f"/servers/{server}/action",
                                json={"lock": None}).status_code == 202
    assert _fault(_attach(demo, server, net_id=demo["second"]), 409) == (
        f"Instance {server} is locked")
    assert _fault(_detach(demo, server, port_id), 409) == f"Instance {server} is locked"
    assert demo["compute"].post(f"/servers/{server}/action",
                                json={"unlock": None}).status_code == 202

    assert demo["compute"].post(f"/servers/{server}/action",
                                json={"suspend": None}).status_code == 202
    cloud.wait_status(server, "SUSPENDED")
    assert _fault(_attach(demo, server, net_id=demo["second"]), 409) == (
        f"Cannot 'attach_interface' instance {server} while it is in vm_state suspended")
    assert _fault(_detach(demo, server, port_id), 409) == (
        f"Cannot 'detach_interface' instance {server} while it is in vm_state suspended")

    conf.set_override("compute", "1.24", group="upgrade_levels")
    assert "upgraded" in _fault(_attach(demo, server, net_id=demo["second"]), 409)
    assert _ports(demo, server) == [port_id]
