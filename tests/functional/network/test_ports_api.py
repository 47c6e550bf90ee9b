"""Ports' addresses over HTTP, as Neutron's IPAM gives them: only from the subnets that
serve the port's device owner (subnet-service-types), and always, but on a router's
interface, from every SLAAC and DHCPv6-stateless subnet of the network, one made after
the port too."""

from __future__ import annotations

import pytest

from novalite.network import macs
from novalite.network.ipam import eui64
from tests.functional.network.neutron import error


@pytest.fixture
def network(net) -> dict:
    return net.post("/networks", json={"network": {"name": "addresses"}}).json()["network"]


def _subnet(net, network: dict, cidr: str, **attrs) -> dict:
    made = net.post("/subnets", json={"subnet": {
        "network_id": network["id"], "cidr": cidr,
        "ip_version": 6 if ":" in cidr else 4, **attrs}})
    assert made.status_code == 201, made.text
    return made.json()["subnet"]


def _port(net, network: dict, **attrs) -> dict:
    made = net.post("/ports", json={"port": {"network_id": network["id"], **attrs}})
    assert made.status_code == 201, made.text
    return made.json()["port"]


def _subnets_of(port: dict) -> list[str]:
    return [ip["subnet_id"] for ip in port["fixed_ips"]]


def test_ports_take_addresses_from_the_subnets_serving_their_owner(net, network):
    fips = _subnet(net, network, "10.20.0.0/24", service_types=["network:floatingip"])
    anyone = _subnet(net, network, "10.21.0.0/24")
    assert _subnets_of(_port(net, network, device_owner="compute:nova")) == [anyone["id"]]
    assert _subnets_of(_port(net, network, device_owner="network:floatingip")) == \
        [fips["id"]]
    message = error(net.post("/ports", json={"port": {
        "network_id": network["id"], "device_owner": "compute:nova",
        "fixed_ips": [{"subnet_id": fips["id"]}]}}), 400, "InvalidInput")
    assert message == (f"Invalid input for operation: Failed to create port on network "
                       f"{network['id']}, because fixed_ips included invalid subnet "
                       f"{fips['id']}.")
    assert net.delete(f"/subnets/{anyone['id']}").status_code == 409  # its port holds it


def test_a_port_no_subnet_serves_is_refused(net, network):
    _subnet(net, network, "10.22.0.0/24", service_types=["network:router_gateway"])
    message = error(net.post("/ports", json={"port": {
        "network_id": network["id"], "device_owner": "compute:nova"}}),
        409, "IpAddressGenerationFailureNoMatchingSubnet")
    assert message == (f"No valid service subnet for the given device owner, network "
                       f"{network['id']}, service type compute:nova.")


@pytest.mark.parametrize(("service_types", "kind", "message"), [
    (["foo"], "InvalidSubnetServiceType",
     "Subnet service type foo does not correspond to a valid device owner."),
    ([7], "InvalidInputSubnetServiceType", "Subnet service type 7 is not a string."),
])
def test_a_service_type_must_be_a_device_owners(net, network, service_types, kind,
                                                message):
    refused = net.post("/subnets", json={"subnet": {
        "network_id": network["id"], "cidr": "10.23.0.0/24", "ip_version": 4,
        "service_types": service_types}})
    assert error(refused, 400, kind) == message
    subnet = _subnet(net, network, "10.23.0.0/24")
    assert error(net.put(f"/subnets/{subnet['id']}", json={"subnet": {
        "service_types": service_types}}), 400, kind) == message
    extensions = {e["alias"] for e in net.get("/extensions").json()["extensions"]}
    assert "subnet-service-types" in extensions


@pytest.mark.parametrize("mode", ["slaac", "dhcpv6-stateless"])
def test_a_port_with_ipv4_addresses_still_gets_its_slaac_one(net, network, mode):
    v4 = _subnet(net, network, "10.24.0.0/24")
    v6 = _subnet(net, network, "fd00:24::/64", ipv6_ra_mode=mode, ipv6_address_mode=mode)
    port = _port(net, network, fixed_ips=[{"subnet_id": v4["id"]}])
    assert sorted(_subnets_of(port)) == sorted([v4["id"], v6["id"]])
    slaac = next(ip for ip in port["fixed_ips"] if ip["subnet_id"] == v6["id"])
    moved = net.put(f"/ports/{port['id']}", json={"port": {
        "fixed_ips": [{"subnet_id": v4["id"], "ip_address": "10.24.0.99"}]}})
    assert moved.status_code == 200, moved.text
    assert moved.json()["port"]["fixed_ips"] == [
        {"subnet_id": v4["id"], "ip_address": "10.24.0.99"}, slaac]


def test_a_router_interface_gets_no_slaac_address(net, network):
    v4 = _subnet(net, network, "10.25.0.0/24")
    _subnet(net, network, "fd00:25::/64", ipv6_ra_mode="slaac", ipv6_address_mode="slaac")
    router = net.post("/routers", json={"router": {"name": "r"}}).json()["router"]
    added = net.put(f"/routers/{router['id']}/add_router_interface",
                    json={"subnet_id": v4["id"]})
    assert added.status_code == 200, added.text
    interface = net.get(f"/ports/{added.json()['port_id']}").json()["port"]
    assert _subnets_of(interface) == [v4["id"]]


@pytest.mark.parametrize("modes", [
    {"ipv6_ra_mode": "slaac", "ipv6_address_mode": "slaac"},
    {"ipv6_ra_mode": "dhcpv6-stateless", "ipv6_address_mode": "dhcpv6-stateless"},
    {"ipv6_ra_mode": "slaac"},  # Neutron's auto-address subnet by its RA mode alone
])
def test_a_new_auto_address_subnet_addresses_the_ports_already_on_its_network(
        net, network, modes):
    v4 = _subnet(net, network, "10.26.0.0/24")
    plain = _port(net, network, device_owner="compute:nova")
    dhcp = _port(net, network, device_owner="network:dhcp")
    router = net.post("/routers", json={"router": {"name": "r"}}).json()["router"]
    interface = net.put(f"/routers/{router['id']}/add_router_interface",
                        json={"subnet_id": v4["id"]}).json()["port_id"]
    elsewhere = _port(net, net.post("/networks", json={"network": {"name": "other"}})
                      .json()["network"])

    v6 = _subnet(net, network, "fd00:26::/64", **modes)
    for before in (plain, dhcp):
        after = net.get(f"/ports/{before['id']}").json()["port"]
        assert after["fixed_ips"] == [
            *before["fixed_ips"],
            {"subnet_id": v6["id"], "ip_address": eui64(v6["cidr"], before["mac_address"])}]
        assert after["revision_number"] > before["revision_number"]
    assert _subnets_of(net.get(f"/ports/{interface}").json()["port"]) == [v4["id"]]
    assert net.get(f"/ports/{elsewhere['id']}").json()["port"]["fixed_ips"] == []


def test_a_new_auto_address_subnet_addresses_only_the_ports_it_serves(net, network):
    compute = _port(net, network, device_owner="compute:nova")
    gateway = _port(net, network, device_owner="network:router_gateway")
    v6 = _subnet(net, network, "fd00:27::/64", ipv6_address_mode="slaac",
                 service_types=["compute:nova"])
    assert _subnets_of(net.get(f"/ports/{compute['id']}").json()["port"]) == [v6["id"]]
    assert _subnets_of(net.get(f"/ports/{gateway['id']}").json()["port"]) == []


def test_another_projects_unshared_network_is_hidden_from_new_ports_and_subnets(net, user):
    client, _ = user
    external = net.post("/networks", json={"network": {
        "name": "admins-ext", "router:external": True}}).json()["network"]
    _subnet(net, external, "172.30.0.0/24")
    assert client.get(f"/networks/{external['id']}").status_code == 200  # external: seen
    for collection, resource, extra in (("ports", "port", {}),
                                        ("subnets", "subnet", {"cidr": "172.31.0.0/24",
                                                               "ip_version": 4})):
        refused = client.post(f"/{collection}", json={resource: {
            "network_id": external["id"], **extra}})
        assert error(refused, 404, "HTTPNotFound") == "The resource could not be found."
    shared = net.post("/networks", json={"network": {"name": "all", "shared": True}})
    _subnet(net, shared.json()["network"], "172.32.0.0/24")
    assert client.post("/ports", json={"port": {
        "network_id": shared.json()["network"]["id"]}}).status_code == 201


def test_a_port_whose_first_mac_was_taken_is_made_on_the_retry(net, network, monkeypatch):
    """A request retried after a lost race runs again on the attributes as asked: the
    first attempt used to consume the project, and the retry failed with a 500."""
    _subnet(net, network, "10.28.0.0/24")
    first = _port(net, network)
    fresh = iter([first["mac_address"], "fa:16:3e:00:00:28"])
    monkeypatch.setattr(macs, "generate", lambda: next(fresh))
    second = _port(net, network, name="second", tenant_id=first["project_id"])
    assert (second["mac_address"], second["name"], second["project_id"]) == (
        "fa:16:3e:00:00:28", "second", first["project_id"])


def test_a_port_shows_its_binding_to_the_admin_only(net, user):
    client, _ = user
    network = client.post("/networks", json={"network": {"name": "own"}}).json()["network"]
    made = client.post("/ports", json={"port": {"network_id": network["id"]}})
    assert made.status_code == 201, made.text
    port_id = made.json()["port"]["id"]
    binding = {"binding:host_id", "binding:profile", "binding:vif_type",
               "binding:vif_details", "resource_request"}
    for answer in (made, client.get(f"/ports/{port_id}"), client.get("/ports")):
        body = answer.json()
        for port in body.get("ports", [body.get("port")]):
            assert not binding & set(port) and port["binding:vnic_type"] == "normal"
    assert binding <= set(net.get(f"/ports/{port_id}").json()["port"])


def test_a_new_port_answers_what_was_written(net, network):
    """A port is written with a plain INSERT: the create's answer and a read of it agree,
    the columns left to their defaults included."""
    _subnet(net, network, "10.22.0.0/24")
    made = _port(net, network, name="plain", tags=["a"])
    shown = net.get(f"/ports/{made['id']}").json()["port"]
    assert made == shown
    assert (made["status"], made["binding:vnic_type"], made["binding:vif_type"],
            made["revision_number"], made["tags"]) == ("DOWN", "normal", "unbound", 0, ["a"])
