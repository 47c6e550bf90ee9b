"""Nova's deprecated floating IP proxies on the compute API: os-floating-ips and
os-floating-ip-pools up to 2.35, addFloatingIp/removeFloatingIp up to 2.43, over the
network service's floating IPs (checked against tempest's compute schemas), with Nova's
errors; an association made here is the network service's own."""

from __future__ import annotations

import httpx
import pytest

from novalite.identity import bootstrap
from novalite.image import db as images
from tests.functional.tempest_schemas import check

UNKNOWN = "6f1e2a4c-1b0d-4f4e-9a57-3c2d8b1e0f90"


def _client(cloud, path: str, **headers: str) -> httpx.Client:
    """A member of the demo project (it owns `private`, joined to `public` by router1)."""
    project = bootstrap.project_ids("demo")[0]
    return httpx.Client(base_url=f"{cloud.base_url}{path}", timeout=30,
                        headers={"X-Auth-Token": f"demo:{project}", **headers})


@pytest.fixture
def demo(cloud):
    """The demo member's compute client, at the proxies' last microversion."""
    return _client(cloud, "/compute/v2.1", **{"OpenStack-API-Version": "compute 2.35"})


@pytest.fixture
def net(cloud):
    return _client(cloud, "/networking/v2.0")


def _boot(cloud, demo, name: str = "vm") -> str:
    made = demo.post("/servers", json={"server": {
        "name": name, "flavorRef": "1", "imageRef": images.DEFAULT_IMAGE_ID}})
    assert made.status_code == 202, made.text
    server_id = made.json()["server"]["id"]
    cloud.wait_status(server_id, "ACTIVE")
    return server_id


@pytest.fixture
def server(cloud, demo):
    return _boot(cloud, demo)


def _fixed(demo, server_id: str) -> str:
    (address,) = [a["addr"] for n in demo.get(f"/servers/{server_id}").json()["server"][
        "addresses"].values() for a in n if a["OS-EXT-IPS:type"] == "fixed"]
    return address


def _floating(demo, server_id: str) -> list[str]:
    return [a["addr"] for n in demo.get(f"/servers/{server_id}").json()["server"][
        "addresses"].values() for a in n if a["OS-EXT-IPS:type"] == "floating"]


def _message(response: httpx.Response, code: int) -> str:
    assert response.status_code == code, response.text
    (fault,) = response.json().values()
    return fault["message"]


def test_pools_are_the_external_networks(demo):
    assert demo.get("/os-floating-ip-pools").json() == {
        "floating_ip_pools": [{"name": "public"}]}


def test_allocate_show_list_and_release_match_tempest(demo):
    made = check(demo.post("/os-floating-ips"), "v2_1", "floating_ips",
                 "create_get_floating_ip")["floating_ip"]
    assert made["pool"] == "public" and made["instance_id"] is None
    assert made["fixed_ip"] is None and made["ip"].startswith("172.24.4.")
    named = check(demo.post("/os-floating-ips", json={"pool": "public"}), "v2_1",
                  "floating_ips", "create_get_floating_ip")["floating_ip"]
    listed = check(demo.get("/os-floating-ips"), "v2_1", "floating_ips",
                   "list_floating_ips")["floating_ips"]
    assert {made["id"], named["id"]} <= {f["id"] for f in listed}
    shown = check(demo.get(f"/os-floating-ips/{made['id']}"), "v2_1", "floating_ips",
                  "create_get_floating_ip")["floating_ip"]
    assert shown == made
    for fip in (made, named):
        assert demo.delete(f"/os-floating-ips/{fip['id']}").status_code == 202
    assert _message(demo.get(f"/os-floating-ips/{made['id']}"), 404) == (
        f"Floating IP not found for ID {made['id']}")


def test_a_pool_by_id_and_the_default_pool_option(conf, demo, net):
    public = net.get("/networks", params={"name": "public"}).json()["networks"][0]
    by_id = demo.post("/os-floating-ips", json={"pool": public["id"]})
    assert by_id.json()["floating_ip"]["pool"] == "public"
    conf.set_override("default_floating_pool", "nova", group="neutron")
    assert _message(demo.post("/os-floating-ips", json={}), 404) == (
        "Floating IP pool not found.")


@pytest.mark.parametrize("pool", ["private", "nowhere", UNKNOWN])
def test_a_pool_that_is_no_external_network_is_404(demo, pool):
    assert _message(demo.post("/os-floating-ips", json={"pool": pool}), 404) == (
        "Floating IP pool not found.")


@pytest.mark.parametrize("body", [{"pool": 1}, [], "public"])
def test_bad_allocation_bodies_are_400(demo, body):
    assert demo.post("/os-floating-ips", json=body).status_code == 400


def test_an_exhausted_pool_and_the_quota(cloud, conf, demo):
    """Nova's 404 when the pool has no address left, 403 over the quota; its texts name
    the pool only when the request did."""
    admin = httpx.Client(base_url=f"{cloud.base_url}/networking/v2.0", timeout=30)
    small = admin.post("/networks", json={"network": {
        "name": "tiny", "router:external": True}}).json()["network"]
    admin.post("/subnets", json={"subnet": {
        "network_id": small["id"], "cidr": "192.0.2.0/30", "ip_version": 4,
        "enable_dhcp": False, "gateway_ip": None}})
    for _ in range(2):
        assert demo.post("/os-floating-ips", json={"pool": "tiny"}).status_code == 200
    assert _message(demo.post("/os-floating-ips", json={"pool": "tiny"}), 404) == (
        "No more floating IPs in pool tiny.")
    conf.set_override("default_floating_pool", "tiny", group="neutron")
    assert _message(demo.post("/os-floating-ips"), 404) == "No more floating IPs available."
    conf.set_override("quota_floatingip", 2, group="QUOTAS")
    assert _message(demo.post("/os-floating-ips", json={"pool": "public"}), 403) == (
        "IP allocation over quota in pool public.")


def test_another_projects_floating_ip_is_404(cloud, demo):
    theirs = cloud.api.post("/os-floating-ips", headers={
        "OpenStack-API-Version": "compute 2.35"}).json()["floating_ip"]
    assert demo.get(f"/os-floating-ips/{theirs['id']}").status_code == 404
    assert demo.delete(f"/os-floating-ips/{theirs['id']}").status_code == 404
    assert theirs["id"] not in {f["id"] for f in demo.get("/os-floating-ips").json()[
        "floating_ips"]}


def test_associate_and_disassociate_through_the_network_service(demo, net, server):
    fip = demo.post("/os-floating-ips").json()["floating_ip"]
    fixed = _fixed(demo, server)
    check(demo.post(f"/servers/{server}/action", json={"addFloatingIp": {
        "address": fip["ip"]}}), "v2_1", "floating_ips", "add_remove_floating_ip")
    (port,) = net.get("/ports", params={"device_id": server}).json()["ports"]
    wired = net.get(f"/floatingips/{fip['id']}").json()["floatingip"]
    assert (wired["port_id"], wired["fixed_ip_address"]) == (port["id"], fixed)
    assert wired["router_id"] and wired["status"] == "ACTIVE"
    shown = demo.get(f"/os-floating-ips/{fip['id']}").json()["floating_ip"]
    assert (shown["instance_id"], shown["fixed_ip"]) == (server, fixed)
    assert _floating(demo, server) == [fip["ip"]]
    check(demo.post(f"/servers/{server}/action", json={"removeFloatingIp": {
        "address": fip["ip"]}}), "v2_1", "floating_ips", "add_remove_floating_ip")
    assert net.get(f"/floatingips/{fip['id']}").json()["floatingip"]["port_id"] is None
    assert _floating(demo, server) == []


def test_an_associated_address_moves_to_the_new_server(cloud, demo, server):
    other = _boot(cloud, demo, "other")
    fip = demo.post("/os-floating-ips").json()["floating_ip"]
    for target in (server, other):
        assert demo.post(f"/servers/{target}/action", json={"addFloatingIp": {
            "address": fip["ip"], "fixed_address": _fixed(demo, target)}}).status_code == 202
    assert demo.get(f"/os-floating-ips/{fip['id']}").json()["floating_ip"][
        "instance_id"] == other
    assert (_floating(demo, server), _floating(demo, other)) == ([], [fip["ip"]])


def test_releasing_an_associated_address_refreshes_its_server(demo, server):
    fip = demo.post("/os-floating-ips").json()["floating_ip"]
    demo.post(f"/servers/{server}/action", json={"addFloatingIp": {"address": fip["ip"]}})
    assert demo.delete(f"/os-floating-ips/{fip['id']}").status_code == 202
    assert _floating(demo, server) == []


def test_add_refusals_in_novas_words(cloud, demo, server):
    fip = demo.post("/os-floating-ips").json()["floating_ip"]
    action = f"/servers/{server}/action"
    assert _message(demo.post(action, json={"addFloatingIp": {
        "address": "172.24.4.250"}}), 404) == "floating IP not found"
    assert _message(demo.post(action, json={"addFloatingIp": {
        "address": fip["ip"], "fixed_address": "10.9.9.9"}}), 400) == (
        "Specified fixed address not assigned to instance")
    assert demo.post(action, json={"addFloatingIp": {"address": "x"}}).status_code == 400
    assert _message(demo.post(f"/servers/{UNKNOWN}/action", json={"addFloatingIp": {
        "address": fip["ip"]}}), 404) == f"Instance {UNKNOWN} could not be found."


def test_a_server_without_a_network_is_not_ready(cloud, demo):
    made = demo.post("/servers", headers={"OpenStack-API-Version": "compute 2.37"}, json={
        "server": {"name": "lonely", "flavorRef": "1", "imageRef": images.DEFAULT_IMAGE_ID,
                   "networks": "none"}}).json()["server"]
    cloud.wait_status(made["id"], "ACTIVE")
    fip = demo.post("/os-floating-ips").json()["floating_ip"]
    assert _message(demo.post(f"/servers/{made['id']}/action", json={"addFloatingIp": {
        "address": fip["ip"]}}), 400) == "Instance network is not ready yet"


def test_remove_refusals_in_novas_words(cloud, demo, server):
    fip = demo.post("/os-floating-ips").json()["floating_ip"]
    action = f"/servers/{server}/action"
    assert _message(demo.post(action, json={"removeFloatingIp": {
        "address": "172.24.4.250"}}), 404) == "Floating IP not found for address 172.24.4.250."
    # Nova judges an unassociated address's removal on an empty target: only an admin
    # passes, to hear that it is not associated.
    remove = {"removeFloatingIp": {"address": fip["ip"]}}
    assert _message(demo.post(action, json=remove), 403) == (
        "Policy doesn't allow os_compute_api:os-floating-ips:remove to be performed.")
    admin = cloud.api.post(action, json=remove, headers={
        "OpenStack-API-Version": "compute 2.35"})
    assert _message(admin, 409) == (
        f"Floating IP {fip['ip']} is not associated with instance {server}.")
    other = _boot(cloud, demo, "other")
    demo.post(f"/servers/{other}/action", json={"addFloatingIp": {"address": fip["ip"]}})
    assert _message(demo.post(action, json=remove), 409) == (
        f"Floating IP {fip['ip']} is not associated with instance {server}.")


@pytest.mark.parametrize(("method", "path"), [
    ("GET", "/os-floating-ips"), ("POST", "/os-floating-ips"),
    ("GET", f"/os-floating-ips/{UNKNOWN}"), ("DELETE", f"/os-floating-ips/{UNKNOWN}"),
    ("GET", "/os-floating-ip-pools")])
def test_the_proxy_is_404_from_2_36(demo, method, path):
    response = demo.request(method, path, headers={"OpenStack-API-Version": "compute 2.36"})
    assert _message(response, 404) == "The resource could not be found."


def test_the_actions_are_404_from_2_44(demo, server):
    fip = demo.post("/os-floating-ips").json()["floating_ip"]
    for name in ("addFloatingIp", "removeFloatingIp"):
        gone = demo.post(f"/servers/{server}/action", json={name: {"address": fip["ip"]}},
                         headers={"OpenStack-API-Version": "compute 2.44"})
        assert _message(gone, 404) == "The resource could not be found."
    for name in ("addFloatingIp", "removeFloatingIp"):
        served = demo.post(f"/servers/{server}/action", json={name: {"address": fip["ip"]}},
                           headers={"OpenStack-API-Version": "compute 2.43"})
        assert served.status_code == 202, served.text


def test_a_reader_lists_and_sees_pools_but_does_not_allocate(cloud):
    reader = _client(cloud, "/compute/v2.1", **{
        "OpenStack-API-Version": "compute 2.35", "X-Roles": "reader"})
    assert reader.get("/os-floating-ips").status_code == 200
    assert reader.get("/os-floating-ip-pools").status_code == 200
    assert _message(reader.post("/os-floating-ips"), 403) == (
        "Policy doesn't allow os_compute_api:os-floating-ips:create to be performed.")
