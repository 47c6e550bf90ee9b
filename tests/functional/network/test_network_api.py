"""The network API over real HTTP on the all-in-one: Neutron's shapes, codes and error
body, list filters, fields, sorting, pagination, tags and If-Match, and the devstack
layout of the first start."""

from __future__ import annotations

import pytest

from tests.functional.network.neutron import error


def test_first_start_has_devstacks_layout(net, user):
    nets = {n["name"]: n for n in net.get("/networks").json()["networks"]}
    assert nets["public"]["router:external"] and nets["public"]["provider:network_type"] == "flat"
    subnet = net.get(f"/subnets/{nets['private']['subnets'][0]}").json()["subnet"]
    assert (subnet["cidr"], subnet["gateway_ip"], subnet["enable_dhcp"]) == (
        "10.0.0.0/26", "10.0.0.1", True)
    router = net.get("/routers", params={"name": "router1"}).json()["routers"][0]
    assert router["external_gateway_info"]["network_id"] == nets["public"]["id"]
    client, demo = user
    seen = client.get("/networks").json()["networks"]
    assert {n["name"] for n in seen} == {"public", "private"}
    assert "provider:network_type" not in seen[0]  # admin-only attribute
    interfaces = net.get("/ports", params={"device_id": router["id"],
                                           "device_owner": "network:router_interface"})
    assert interfaces.json()["ports"][0]["fixed_ips"][0]["ip_address"] == "10.0.0.1"
    extensions = {e["alias"] for e in net.get("/extensions").json()["extensions"]}
    assert {"router", "external-net", "security-group", "binding"} <= extensions


def test_ports_errors_and_no_half_made_port(net, user):
    client, _ = user
    network = client.post("/networks", json={"network": {"name": "n1"}}).json()["network"]
    subnet = client.post("/subnets", json={"subnet": {
        "network_id": network["id"], "cidr": "192.168.5.0/24", "ip_version": 4}})
    assert subnet.status_code == 201, subnet.text
    subnet = subnet.json()["subnet"]
    error(client.post("/subnets", json={"subnet": {
        "network_id": network["id"], "cidr": "192.168.5.128/25", "ip_version": 4}}),
        400, "OverlappingCidr")
    port = client.post("/ports", json={"port": {
        "network_id": network["id"], "fixed_ips": [{"ip_address": "192.168.5.9"}]}})
    assert port.status_code == 201, port.text
    error(client.post("/ports", json={"port": {
        "network_id": network["id"], "fixed_ips": [{"ip_address": "192.168.5.9"}]}}),
        409, "IpAddressAlreadyAllocated")
    error(client.post("/ports", json={"port": {
        "network_id": network["id"], "fixed_ips": [{"subnet_id": subnet["id"],
                                                    "ip_address": "10.9.9.9"}]}}),
        400, "InvalidIpForSubnet")
    error(client.post("/ports", json={"port": {"network_id": network["id"], "bogus": 1}}),
           400, "HTTPBadRequest")
    error(client.post("/ports", json={"port": {
        "network_id": network["id"], "binding:host_id": "h"}}), 403, "PolicyNotAuthorized")
    assert len(client.get("/ports", params={"network_id": network["id"]}).json()["ports"]) == 1
    error(client.delete(f"/networks/{network['id']}"), 409, "NetworkInUse")
    error(client.get("/ports/nope"), 404, "PortNotFound")
    assert client.delete(f"/ports/{port.json()['port']['id']}").status_code == 204
    assert client.delete(f"/networks/{network['id']}").status_code == 204


def test_lists_filter_sort_page_and_fields(net):
    made = [net.post("/networks", json={"network": {"name": f"pg{i}"}}).json()["network"]
            for i in range(5)]
    found = net.get("/networks", params=[("name", "pg1"), ("name", "pg3"),
                                         ("fields", "name"), ("fields", "id")]).json()
    assert sorted(n["name"] for n in found["networks"]) == ["pg1", "pg3"]
    assert set(found["networks"][0]) == {"name", "id"}
    ordered = net.get("/networks", params={"sort_key": "name", "sort_dir": "desc"}).json()
    names = [n["name"] for n in ordered["networks"]]
    assert names == sorted(names, reverse=True)
    page = net.get("/networks", params={"limit": 2, "sort_key": "name"}).json()
    assert len(page["networks"]) == 2 and page["networks_links"][0]["rel"] == "next"
    error(net.get("/networks", params={"colour": "red"}), 400, "HTTPBadRequest")
    assert made


def test_tags_and_revision_if_match(net):
    network = net.post("/networks", json={"network": {"name": "t"}}).json()["network"]
    path = f"/networks/{network['id']}"
    assert net.put(f"{path}/tags/blue").status_code == 201
    assert net.put(f"{path}/tags", json={"tags": ["a", "b"]}).json()["tags"] == ["a", "b"]
    assert [n["id"] for n in net.get("/networks", params={"tags": "a,b"}).json()[
        "networks"]] == [network["id"]]
    assert net.get(f"{path}/tags/zzz").status_code == 404
    revision = net.get(path).json()["network"]["revision_number"]
    error(net.put(path, json={"network": {"name": "x"}},
                   headers={"If-Match": f"revision_number={revision - 1}"}),
           412, "RevisionNumberConstraintFailed")
    updated = net.put(path, json={"network": {"name": "x"}},
                      headers={"If-Match": f"revision_number={revision}"})
    assert updated.status_code == 200 and updated.json()["network"]["revision_number"] > revision


def test_floating_ip_and_router_interface(net, user):
    client, demo = user
    nets = {n["name"]: n for n in client.get("/networks").json()["networks"]}
    port = client.post("/ports", json={"port": {"network_id": nets["private"]["id"]}})
    port = port.json()["port"]
    assert port["security_groups"]  # the project's default group
    fip = client.post("/floatingips", json={"floatingip": {
        "floating_network_id": nets["public"]["id"], "port_id": port["id"]}})
    assert fip.status_code == 201, fip.text
    fip = fip.json()["floatingip"]
    assert fip["fixed_ip_address"] == port["fixed_ips"][0]["ip_address"]
    router = client.get("/routers").json()["routers"][0]
    error(client.put(f"/routers/{router['id']}/remove_router_interface",
                      json={"subnet_id": nets["private"]["subnets"][0]}),
           409, "RouterInterfaceInUseByFloatingIP")
    assert client.put(f"/floatingips/{fip['id']}", json={"floatingip": {"port_id": None}}
                      ).json()["floatingip"]["status"] == "DOWN"
    assert client.delete(f"/floatingips/{fip['id']}").status_code == 204


def test_quotas_and_security_groups(net, user):
    client, demo = user
    assert net.put(f"/quotas/{demo}", json={"quota": {"security_group": 2}}).status_code == 200
    assert client.get(f"/quotas/{demo}").json()["quota"]["security_group"] == 2
    error(client.put(f"/quotas/{demo}", json={"quota": {"port": 1}}), 403,
           "PolicyNotAuthorized")
    web = client.post("/security-groups", json={"security_group": {"name": "web"}})
    assert web.status_code == 201, web.text
    error(client.post("/security-groups", json={"security_group": {"name": "more"}}),
           409, "OverQuota")
    rule = client.post("/security-group-rules", json={"security_group_rule": {
        "security_group_id": web.json()["security_group"]["id"], "direction": "ingress",
        "protocol": "tcp", "port_range_min": 22, "port_range_max": 22}})
    assert rule.status_code == 201, rule.text
    groups = {g["name"] for g in client.get("/security-groups").json()["security_groups"]}
    assert groups == {"default", "web"}


def test_ports_are_found_by_their_fixed_ips(net):
    network = net.post("/networks", json={"network": {"name": "by-ip"}}).json()["network"]
    subnet = net.post("/subnets", json={"subnet": {
        "network_id": network["id"], "cidr": "192.168.7.0/24", "ip_version": 4}}).json()
    port = net.post("/ports", json={"port": {
        "network_id": network["id"], "fixed_ips": [{"ip_address": "192.168.7.77"}]}})
    port_id = port.json()["port"]["id"]

    def found(*fixed_ips: str) -> list[str]:
        listed = net.get("/ports", params=[("fixed_ips", f) for f in fixed_ips])
        assert listed.status_code == 200, listed.text
        return [p["id"] for p in listed.json()["ports"]]

    assert found("ip_address=192.168.7.77") == [port_id]
    assert found(f"subnet_id={subnet['subnet']['id']}", "ip_address_substr=7.7") == [port_id]
    assert found("ip_address=192.168.7.78") == []


@pytest.mark.parametrize(("body", "message"), [
    ({"dns_nameservers": ["x"]}, "Invalid input for dns_nameservers. Reason: 'x' is not a "
                                 "valid nameserver. 'x' is not a valid IP address."),
    ({"dns_nameservers": ["8.8.8.8", "8.8.8.8"]},
     "Invalid input for dns_nameservers. Reason: Duplicate nameserver '8.8.8.8'."),
    ({"host_routes": [{"destination": "1.2.3.0/24"}]},
     "Invalid input for host_routes. Reason: Validation of dictionary's keys failed. "
     "Expected keys: ['destination', 'nexthop'] Provided keys: ['destination']."),
    ({"host_routes": [{"destination": "bad", "nexthop": "10.1.0.1"}]},
     "Invalid input for host_routes. Reason: 'bad' is not a valid IP subnet."),
    ({"cidr": "2001:db8:8::/120", "ip_version": 6, "ipv6_address_mode": "slaac"},
     "Invalid input for operation: Invalid CIDR 2001:db8:8::/120 for IPv6 address mode. "
     "OpenStack uses the EUI-64 address format, which requires the prefix to be /64."),
])
def test_subnet_dns_routes_and_slaac_prefixes_are_checked_as_neutron_does(net, body,
                                                                           message):
    network = net.post("/networks", json={"network": {"name": "checked"}}).json()["network"]
    refused = net.post("/subnets", json={"subnet": {
        "network_id": network["id"], "cidr": "10.1.0.0/24", "ip_version": 4, **body}})
    assert refused.status_code == 400, refused.text
    assert refused.json()["NeutronError"]["message"] == message


def test_port_security_goes_off_only_once_the_groups_are_gone(net):
    network = net.post("/networks", json={"network": {"name": "secured"}}).json()["network"]
    net.post("/subnets", json={"subnet": {
        "network_id": network["id"], "cidr": "10.2.0.0/24", "ip_version": 4}})
    port = net.post("/ports", json={"port": {"network_id": network["id"]}}).json()["port"]
    assert port["security_groups"]
    message = error(net.put(f"/ports/{port['id']}", json={"port": {
        "port_security_enabled": False}}), 409, "PortSecurityPortHasSecurityGroup")
    assert message.startswith("Port has security group associated.")
    assert net.get(f"/ports/{port['id']}").json()["port"]["security_groups"] == \
        port["security_groups"]
    off = net.put(f"/ports/{port['id']}", json={"port": {
        "port_security_enabled": False, "security_groups": []}})
    assert off.status_code == 200, off.text
    assert (off.json()["port"]["port_security_enabled"],
            off.json()["port"]["security_groups"]) == (False, [])


def test_a_router_takes_no_interface_overlapping_another(net):
    router = net.get("/routers", params={"name": "router1"}).json()["routers"][0]
    private = net.get("/subnets", params={"name": "private-subnet"}).json()["subnets"][0]
    network = net.post("/networks", json={"network": {"name": "again"}}).json()["network"]
    subnet = net.post("/subnets", json={"subnet": {
        "network_id": network["id"], "cidr": "10.0.0.0/26", "ip_version": 4}}).json()
    message = error(net.put(f"/routers/{router['id']}/add_router_interface",
                             json={"subnet_id": subnet["subnet"]["id"]}), 400, "BadRequest")
    assert message == (f"Bad router request: Cidr 10.0.0.0/26 of subnet "
                       f"{subnet['subnet']['id']} overlaps with cidr 10.0.0.0/26 of subnet "
                       f"{private['id']}.")


def test_a_network_in_use_stays_shared_and_a_gateways_stays_external(net, user):
    demo, _ = user
    shared = net.post("/networks", json={"network": {"name": "all", "shared": True}}).json()
    net_id = shared["network"]["id"]
    net.post("/subnets", json={"subnet": {"network_id": net_id, "cidr": "10.3.0.0/24",
                                          "ip_version": 4}})
    assert demo.post("/ports", json={"port": {"network_id": net_id}}).status_code == 201
    message = error(net.put(f"/networks/{net_id}", json={"network": {"shared": False}}),
                     409, "InvalidSharedSetting")
    assert message == ("Unable to reconfigure sharing settings for network all. Multiple "
                       "tenants are using it.")
    public = net.get("/networks", params={"name": "public"}).json()["networks"][0]
    error(net.put(f"/networks/{public['id']}", json={"network": {"router:external": False}}),
           409, "ExternalNetworkInUse")


@pytest.mark.parametrize(("collection", "resource", "required"), [
    ("floatingips", "floatingip", "floating_network_id"),
    ("security-group-rules", "security_group_rule", "security_group_id"),
    ("ports", "port", "network_id"),
    ("subnets", "subnet", "network_id"),
])
def test_a_create_without_its_required_attribute_is_a_400(net, collection, resource,
                                                          required):
    message = error(net.post(f"/{collection}", json={resource: {}}), 400, "HTTPBadRequest")
    assert message == f"Failed to parse request. Required attribute '{required}' not specified"


@pytest.mark.parametrize(("path", "alias"), [("/agents", "agent"),
                                             ("/rbac-policies", "rbac-policies")])
def test_extensions_not_loaded_are_404_as_in_neutron(net, path, alias):
    """Neutron answers 404 for the resources of an extension it has not loaded, and
    clients read /extensions to know; these are not advertised."""
    assert alias not in {e["alias"] for e in net.get("/extensions").json()["extensions"]}
    assert error(net.get(path), 404, "HTTPNotFound") == "The resource could not be found."
