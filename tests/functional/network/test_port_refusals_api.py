"""Port creates and updates Neutron refuses, with its status, type and text: a change of
the address behind a floating IP (l3_db's prevent_internal_ip_change_for_fip), security
groups without port security (ML2's port-security processing), and the fixed IPs and
allowed address pairs neutron-lib's validators refuse."""

from __future__ import annotations

import pytest

from tests.functional.network.neutron import error


@pytest.fixture
def private(net) -> dict:
    return net.get("/networks", params={"name": "private"}).json()["networks"][0]


def _port(net, network: dict, **attrs) -> dict:
    made = net.post("/ports", json={"port": {"network_id": network["id"], **attrs}})
    assert made.status_code == 201, made.text
    return made.json()["port"]


def _put(net, port: dict, **attrs):
    return net.put(f"/ports/{port['id']}", json={"port": attrs})


@pytest.fixture
def with_fip(net, private) -> tuple[dict, dict]:
    """A port of the private network whose address a floating IP is associated with."""
    port = _port(net, private)
    public = net.get("/networks", params={"name": "public"}).json()["networks"][0]
    fip = net.post("/floatingips", json={"floatingip": {
        "floating_network_id": public["id"], "port_id": port["id"]}})
    assert fip.status_code == 201, fip.text
    return port, fip.json()["floatingip"]


@pytest.mark.parametrize("fixed_ips", [
    [{"ip_address": "10.0.0.50"}],
    [],
    # keeps the address in fact, but Neutron asks the floating IP's address be named
    "own subnet only",
])
def test_the_address_behind_a_floating_ip_cannot_go(net, with_fip, fixed_ips):
    port, fip = with_fip
    if fixed_ips == "own subnet only":
        fixed_ips = [{"subnet_id": port["fixed_ips"][0]["subnet_id"]}]
    message = error(_put(net, port, fixed_ips=fixed_ips), 400, "BadRequest")
    assert message == (f"Bad port request: Cannot update the fixed_ips of the port "
                       f"{port['id']}, because its original fixed_ip has been associated "
                       f"to a floating ip.")
    assert net.get(f"/ports/{port['id']}").json()["port"]["fixed_ips"] == port["fixed_ips"]


def test_the_other_addresses_of_a_port_with_a_floating_ip_can_change(net, with_fip):
    port, fip = with_fip
    (kept,) = port["fixed_ips"]
    grown = _put(net, port, fixed_ips=[kept, {"subnet_id": kept["subnet_id"]}])
    assert grown.status_code == 200, grown.text
    assert len(grown.json()["port"]["fixed_ips"]) == 2
    shrunk = _put(net, port, fixed_ips=[{"ip_address": kept["ip_address"]}])
    assert shrunk.status_code == 200, shrunk.text
    assert shrunk.json()["port"]["fixed_ips"] == [kept]
    renamed = _put(net, port, name="still-floating")  # no fixed_ips: nothing to check
    assert renamed.status_code == 200, renamed.text
    net.put(f"/floatingips/{fip['id']}", json={"floatingip": {"port_id": None}})
    moved = _put(net, port, fixed_ips=[{"ip_address": "10.0.0.50"}])
    assert moved.status_code == 200, moved.text
