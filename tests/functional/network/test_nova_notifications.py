"""The network service tells compute what changed under its servers: a floating IP
associated or released through the network API shows in (and leaves) the server's
addresses, through the network-changed external event, as with Neutron and Nova; so
does the address a new SLAAC subnet gives the server's port."""

from __future__ import annotations

import httpx
import pytest

from novalite.identity import bootstrap
from novalite.image import db as images
from novalite.network.ipam import eui64
from tests.functional.identity.conftest import Identity


@pytest.fixture
def demo(cloud):
    (project,) = bootstrap.project_ids("demo")
    headers = {"X-Auth-Token": f"demo:{project}"}
    return (httpx.Client(base_url=f"{cloud.base_url}/networking/v2.0", headers=headers,
                         timeout=30),
            httpx.Client(base_url=f"{cloud.base_url}/compute/v2.1", timeout=30,
                         headers={**headers, "OpenStack-API-Version": "compute 2.1"}))


def _floating(server: dict) -> list[str]:
    return [a["addr"] for net in server["addresses"].values() for a in net
            if a["OS-EXT-IPS:type"] == "floating"]


def test_a_floating_ip_set_through_the_network_api_shows_in_addresses(cloud, demo):
    net, compute = demo
    nets = {n["name"]: n for n in net.get("/networks").json()["networks"]}
    created = compute.post("/servers", json={"server": {
        "name": "fip", "flavorRef": "1", "imageRef": images.DEFAULT_IMAGE_ID,
        "networks": [{"uuid": nets["private"]["id"]}]}})
    server_id = created.json()["server"]["id"]
    shown = lambda: compute.get(f"/servers/{server_id}").json()["server"]  # noqa: E731
    cloud.wait(lambda: shown()["status"] == "ACTIVE")
    (port,) = net.get("/ports", params={"device_id": server_id}).json()["ports"]
    fip = net.post("/floatingips", json={"floatingip": {
        "floating_network_id": nets["public"]["id"]}}).json()["floatingip"]
    assert net.put(f"/floatingips/{fip['id']}", json={"floatingip": {
        "port_id": port["id"]}}).status_code == 200
    cloud.wait(lambda: _floating(shown()) == [fip["floating_ip_address"]])
    net.put(f"/floatingips/{fip['id']}", json={"floatingip": {"port_id": None}})
    cloud.wait(lambda: _floating(shown()) == [])


def test_a_new_slaac_subnet_gives_a_running_server_its_address(cloud, demo):
    net, compute = demo
    private, = net.get("/networks", params={"name": "private"}).json()["networks"]
    created = compute.post("/servers", json={"server": {
        "name": "v6", "flavorRef": "1", "imageRef": images.DEFAULT_IMAGE_ID,
        "networks": [{"uuid": private["id"]}]}})
    server_id = created.json()["server"]["id"]
    shown = lambda: compute.get(f"/servers/{server_id}").json()["server"]  # noqa: E731
    cloud.wait(lambda: shown()["status"] == "ACTIVE")
    (port,) = net.get("/ports", params={"device_id": server_id}).json()["ports"]
    made = net.post("/subnets", json={"subnet": {
        "network_id": private["id"], "cidr": "fd00:aa::/64", "ip_version": 6,
        "ipv6_ra_mode": "slaac", "ipv6_address_mode": "slaac"}})
    assert made.status_code == 201, made.text
    address = eui64("fd00:aa::/64", port["mac_address"])
    (port,) = net.get("/ports", params={"device_id": server_id}).json()["ports"]
    assert address in [ip["ip_address"] for ip in port["fixed_ips"]]
    cloud.wait(lambda: address in [a["addr"] for a in shown()["addresses"]["private"]
                                   if a["version"] == 6])


def test_with_keystone_tokens_too(conf, cloud_factory):
    """The all-in-one as users run it: its notifier authenticates as a service would."""
    conf.set_override("auth_strategy", "keystone", group="api")
    cloud = cloud_factory(hosts=1)
    identity = Identity(cloud)
    token, _ = identity.login("demo")
    headers = {"X-Auth-Token": token}
    clients = (httpx.Client(base_url=f"{cloud.base_url}/networking/v2.0", headers=headers,
                            timeout=30),
               httpx.Client(base_url=f"{cloud.base_url}/compute/v2.1", timeout=30,
                            headers={**headers, "OpenStack-API-Version": "compute 2.1"}))
    test_a_floating_ip_set_through_the_network_api_shows_in_addresses(cloud, clients)


def test_the_server_list_shows_addresses_as_show_does(cloud, demo):
    """`openstack server show <name>` reads the detail list: it must carry them too."""
    net, compute = demo
    nets = {n["name"]: n for n in net.get("/networks").json()["networks"]}
    created = compute.post("/servers", json={"server": {
        "name": "listed", "flavorRef": "1", "imageRef": images.DEFAULT_IMAGE_ID,
        "networks": [{"uuid": nets["private"]["id"]}]}})
    server_id = created.json()["server"]["id"]
    cloud.wait(lambda: compute.get(f"/servers/{server_id}").json()["server"]["status"]
               == "ACTIVE")
    shown = compute.get(f"/servers/{server_id}").json()["server"]["addresses"]
    listed = compute.get("/servers/detail", params={"name": "listed"}).json()["servers"]
    assert shown["private"] and [s["addresses"] for s in listed] == [shown]


def test_the_ip_filter_matches_the_start_of_a_fixed_address(cloud, demo):
    net, compute = demo
    nets = {n["name"]: n for n in net.get("/networks").json()["networks"]}
    created = compute.post("/servers", json={"server": {
        "name": "addressed", "flavorRef": "1", "imageRef": images.DEFAULT_IMAGE_ID,
        "networks": [{"uuid": nets["private"]["id"]}]}})
    server_id = created.json()["server"]["id"]
    cloud.wait(lambda: compute.get(f"/servers/{server_id}").json()["server"]["status"]
               == "ACTIVE")
    (address,) = [a["addr"] for a in compute.get(f"/servers/{server_id}").json()[
        "server"]["addresses"]["private"]]

    def listed(**params):
        return [s["id"] for s in compute.get("/servers", params=params).json()["servers"]]

    assert listed(ip=address) == [server_id]
    assert listed(ip="10\\.0\\.0\\.") == [server_id]
    assert listed(ip="0.0.11") == []  # from the start, as Nova's re.match
    assert compute.get("/servers", params={"ip6": "fd"}, headers={
        "OpenStack-API-Version": "compute 2.5"}).json()["servers"] == []
