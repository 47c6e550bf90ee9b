"""Port creates and updates Neutron refuses, with its status, type and text: a change of
the address behind a floating IP (l3_db's prevent_internal_ip_change_for_fip), security
groups without port security (ML2's port-security processing), and the fixed IPs and
allowed address pairs neutron-lib's validators refuse."""

from __future__ import annotations

import pytest

from tests.functional.network.neutron import error

PORT_SECURITY_NEEDED = ("Port security must be enabled and port must have an IP address "
                        "in order to use security groups.")
HAS_GROUPS = ("Port has security group associated. Cannot disable port security or IP "
              "address until security group is removed.")


@pytest.fixture
def private(net) -> dict:
    return net.get("/networks", params={"name": "private"}).json()["networks"][0]


def _port(net, network: dict, **attrs) -> dict:
    made = net.post("/ports", json={"port": {"network_id": network["id"], **attrs}})
    assert made.status_code == 201, made.text
    return made.json()["port"]


def _put(net, port: dict, **attrs):
    return net.put(f"/ports/{port['id']}", json={"port": attrs})


def _default_group(net, port: dict) -> str:
    return net.get("/security-groups", params={
        "name": "default", "project_id": port["project_id"]}).json()["security_groups"][0]["id"]


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


def test_security_groups_need_port_security_on_create(net, private):
    group = _default_group(net, _port(net, private))
    refused = net.post("/ports", json={"port": {
        "network_id": private["id"], "port_security_enabled": False,
        "security_groups": [group]}})
    assert error(refused, 400, "PortSecurityAndIPRequiredForSecurityGroups") == \
        PORT_SECURITY_NEEDED
    unsecured = net.post("/networks", json={"network": {
        "name": "unsecured", "port_security_enabled": False}}).json()["network"]
    refused = net.post("/ports", json={"port": {"network_id": unsecured["id"],
                                                "security_groups": [group]}})
    error(refused, 400, "PortSecurityAndIPRequiredForSecurityGroups")
    bare = _port(net, private, port_security_enabled=False, security_groups=[])
    assert bare["security_groups"] == []


def test_a_port_without_an_address_may_have_security_groups(net):
    """ML2 checks only port security, whatever the message says of addresses."""
    network = net.post("/networks", json={"network": {"name": "no-subnet"}}).json()
    port = _port(net, network["network"])
    assert port["fixed_ips"] == [] and port["security_groups"]


def test_security_groups_on_an_unsecured_port_are_a_bad_request(net, private):
    port = _port(net, private, port_security_enabled=False)
    group = _default_group(net, _port(net, private))
    error(_put(net, port, security_groups=[group]), 400,
          "PortSecurityAndIPRequiredForSecurityGroups")
    secured = _port(net, private)
    message = error(_put(net, secured, port_security_enabled=False,
                         security_groups=secured["security_groups"]),
                    400, "PortSecurityAndIPRequiredForSecurityGroups")
    assert message == PORT_SECURITY_NEEDED


def test_disabling_port_security_on_a_port_with_groups_is_a_conflict(net, private):
    port = _port(net, private)
    message = error(_put(net, port, port_security_enabled=False), 409,
                    "PortSecurityPortHasSecurityGroup")
    assert message == HAS_GROUPS
    paired = _put(net, port, port_security_enabled=False,
                  allowed_address_pairs=[{"ip_address": "10.0.0.60"}])
    message = error(paired, 409, "AddressPairAndPortSecurityRequired")  # checked first
    assert message == ("Port Security must be enabled in order to have allowed address "
                       "pairs on a port.")
    dropped = _put(net, port, port_security_enabled=False, security_groups=[])
    assert dropped.status_code == 200, dropped.text
    assert (dropped.json()["port"]["port_security_enabled"],
            dropped.json()["port"]["security_groups"]) == (False, [])


@pytest.mark.parametrize(("fixed_ips", "reason"), [
    ([{"ip_address": "10.0.0.40"}, {"ip_address": "10.0.0.40"}],
     "Duplicate IP address '10.0.0.40'"),
    ([{"ip_address": "banana"}], "'banana' is not a valid IP address"),
    ([{"ip_address": 7}], "'7' is not a valid IP address"),
    ([{"ip_address": "10.0.0.040"}],
     "'10.0.0.040' is not an accepted IP address, '10.0.0.40' is recommended"),
    ([{"subnet_id": "nope"}], "'nope' is not a valid UUID"),
    (["10.0.0.40"], "Invalid data format for fixed IP: '10.0.0.40'"),
])
def test_fixed_ips_are_checked_as_neutron_lib_does(net, private, fixed_ips, reason):
    port = _port(net, private)
    for refused in (net.post("/ports", json={"port": {"network_id": private["id"],
                                                      "fixed_ips": fixed_ips}}),
                    _put(net, port, fixed_ips=fixed_ips)):
        assert error(refused, 400, "HTTPBadRequest") == \
            f"Invalid input for fixed_ips. Reason: {reason}."


def test_an_address_pair_may_name_a_host_in_its_subnet(net, private):
    """neutron-lib's validate_subnet takes `10.0.0.200/24` (netaddr keeps the host
    bits), and Neutron shows the pair as given."""
    port = _port(net, private, allowed_address_pairs=[{"ip_address": "10.0.0.200/24"}])
    assert port["allowed_address_pairs"] == [
        {"ip_address": "10.0.0.200/24", "mac_address": port["mac_address"]}]
