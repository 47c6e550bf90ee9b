"""The distributed cloud with its network service as a process of its own
(novalite-network): six servers boot on a project network, get floating IPs, and are
deleted with no port or address left behind; computes reach the network service only
over HTTP, and it tells compute of changes through os-server-external-events. On
PostgreSQL: IPAM's races on MariaDB are test_network_ipam's."""

from __future__ import annotations

import httpx
import pytest

from novalite.image import db as images
from tests.integration.test_distributed import _start_all
from tests.ports import free_port

DEMO = {"X-Auth-Token": "demo:demo", "X-OpenStack-Nova-API-Version": "2.37"}


def _network_service(topo) -> httpx.Client:
    """novalite-network on a port of its own; every other service is pointed at it."""
    port = free_port()
    config = topo.config.read_text().replace(f"{topo.port}/networking", f"{port}/networking")
    topo.config.write_text(config + f"[DEFAULT]\nbind_host = 127.0.0.1\nbind_port = {port}\n")
    topo.manage("db", "sync")
    topo.start("network", "novalite-network")
    client = httpx.Client(base_url=f"http://127.0.0.1:{port}/networking/v2.0", timeout=30)
    topo.wait(lambda: client.get("/networks").status_code == 200, what="the network API")
    return client


def _layout(net: httpx.Client) -> tuple[str, str]:
    """devstack's: public (external), the demo project's private, a router between."""
    public = net.post("/networks", json={"network": {"name": "public",
                                                     "router:external": True}}).json()
    public_id = public["network"]["id"]
    net.post("/subnets", json={"subnet": {"network_id": public_id, "cidr": "172.24.4.0/24",
                                          "ip_version": 4}}).raise_for_status()
    private = net.post("/networks", json={"network": {"name": "private"}}, headers=DEMO)
    private_id = private.json()["network"]["id"]
    subnet = net.post("/subnets", json={"subnet": {
        "network_id": private_id, "cidr": "10.0.0.0/26", "ip_version": 4}}, headers=DEMO)
    router = net.post("/routers", json={"router": {
        "name": "router1", "external_gateway_info": {"network_id": public_id}}},
        headers=DEMO).json()["router"]
    net.put(f"/routers/{router['id']}/add_router_interface",
            json={"subnet_id": subnet.json()["subnet"]["id"]}, headers=DEMO).raise_for_status()
    return public_id, private_id


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_six_servers_with_floating_ips_leave_nothing_behind(topology):
    topo = topology
    net = _network_service(topo)
    _start_all(topo)
    topo.manage("db", "seed")
    public_id, private_id = _layout(net)
    made = topo.api.post("/servers", headers=DEMO, json={"server": {
        "name": "dist", "flavorRef": "1", "imageRef": images.DEFAULT_IMAGE_ID,
        "min_count": 6, "max_count": 6, "networks": [{"uuid": private_id}]}})
    assert made.status_code == 202, made.text

    def all_active():
        servers = topo.api.get("/servers/detail", headers=DEMO).json()["servers"]
        return len(servers) == 6 and all(s["status"] == "ACTIVE" for s in servers) and servers

    servers = topo.wait(all_active, timeout=120, what="six servers ACTIVE")
    for server in servers:
        (port,) = net.get("/ports", params={"device_id": server["id"]}).json()["ports"]
        assert port["binding:host_id"] and port["status"] == "ACTIVE"
        fip = net.post("/floatingips", headers=DEMO, json={"floatingip": {
            "floating_network_id": public_id, "port_id": port["id"]}})
        assert fip.status_code == 201, fip.text

    def floating_shown():
        listed = topo.api.get("/servers/detail", headers=DEMO).json()["servers"]
        return all(len(s["addresses"].get("private", [])) == 2 for s in listed)

    topo.wait(floating_shown, timeout=60, what="floating IPs in every server's addresses")
    for server in servers:
        assert topo.api.delete(f"/servers/{server['id']}", headers=DEMO).status_code == 204
    topo.wait(lambda: topo.api.get("/servers", headers=DEMO).json()["servers"] == [],
              timeout=120, what="all deleted")
    assert net.get("/ports", params={"network_id": private_id,
                                     "device_owner": "compute:nova"}).json()["ports"] == []
    for fip in net.get("/floatingips").json()["floatingips"]:
        assert fip["port_id"] is None
        assert net.delete(f"/floatingips/{fip['id']}").status_code == 204
    # what holds an address now: the router's gateway and its interface, nothing else
    assert topo.query("SELECT COUNT(*) FROM ipallocations")[0][0] == 2
    codes = topo.stop()
    assert set(codes.values()) == {0}, codes
