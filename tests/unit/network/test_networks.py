"""Networks and subnets on SQLite: segments, overlap, IPv6 modes, routers and floating
IPs end to end at the data layer."""

from __future__ import annotations

import pytest

from novalite.network import (
    errors,
    floating_ips,
    networks,
    ports,
    routers,
    security_groups,
    subnets,
    transaction,
)
from novalite.network.scope import ADMIN, Scope
from tests.statements import statements
from tests.unit.network.conftest import PROJECT


def test_project_networks_get_distinct_vxlan_ids(make_network):
    ids = {make_network(None)[0]["provider:segmentation_id"] for _ in range(5)}
    assert len(ids) == 5


def test_provider_vlan_segment_is_taken_once(db):
    def make(s):
        return networks.create(s, "admin", {"name": "v"}, {
            "network_type": "vlan", "physical_network": "physnet1", "segmentation_id": 100})
    net = transaction.write(make)
    assert (net["provider:network_type"], net["provider:segmentation_id"]) == ("vlan", 100)
    with pytest.raises(errors.VlanIdInUse):
        transaction.write(make)


def test_overlapping_cidr_on_one_network_is_refused(make_network):
    net, _ = make_network("10.0.0.0/24")

    def add(s):
        return subnets.create(s, networks.get(s, PROJECT, net["id"]), "p1",
                              {"cidr": "10.0.0.128/25", "ip_version": 4})
    with pytest.raises(errors.OverlappingCidr):
        transaction.write(add)


def test_ipv6_slaac_subnet_gives_eui64_addresses(make_network):
    net, _ = make_network(None)

    def add(s):
        row = networks.get(s, PROJECT, net["id"])
        subnets.create(s, row, "p1", {"cidr": "fd00::/64", "ip_version": 6,
                                      "ipv6_address_mode": "slaac", "ipv6_ra_mode": "slaac"})
        return ports.create(s, PROJECT, row, "p1", {})
    port = transaction.write(add)
    assert port["fixed_ips"][0]["ip_address"].startswith("fd00::")
    assert "ff:fe" in port["fixed_ips"][0]["ip_address"].replace("fffe", "ff:fe")


def _external(s):
    net = networks.create(s, "admin", {"name": "public"}, {}, external=True)
    row = networks.get(s, ADMIN, net["id"])
    subnets.create(s, row, "admin", {"cidr": "172.24.4.0/24", "ip_version": 4})
    return net


def test_floating_ip_needs_a_router_and_blocks_its_interface_removal(make_network):
    public = transaction.write(_external)
    net, sub = make_network("10.0.0.0/26")
    port = transaction.write(lambda s: ports.create(
        s, PROJECT, networks.get(s, PROJECT, net["id"]), "p1", {}))
    fip = transaction.write(lambda s: floating_ips.create(
        s, PROJECT, "p1", {"floating_network_id": public["id"]}))
    assert fip["floating_ip_address"].startswith("172.24.4.") and fip["port_id"] is None
    with pytest.raises(errors.ExternalGatewayForFloatingIPNotFound):
        transaction.write(lambda s: floating_ips.update(
            s, PROJECT, floating_ips.get(s, PROJECT, fip["id"]), {"port_id": port["id"]}))
    router = transaction.write(lambda s: routers.create(
        s, PROJECT, "p1", {"name": "r", "external_gateway_info": {"network_id": public["id"]}}))
    assert router["external_gateway_info"]["external_fixed_ips"]
    transaction.write(lambda s: routers.add_interface(
        s, PROJECT, routers.get(s, PROJECT, router["id"]), {"subnet_id": sub["id"]}))
    bound = transaction.write(lambda s: floating_ips.update(
        s, PROJECT, floating_ips.get(s, PROJECT, fip["id"]), {"port_id": port["id"]}))
    assert bound["status"] == "ACTIVE" and bound["router_id"] == router["id"]
    with pytest.raises(errors.RouterInterfaceInUseByFloatingIP):
        transaction.write(lambda s: routers.remove_interface(
            s, PROJECT, routers.get(s, PROJECT, router["id"]), {"subnet_id": sub["id"]}))
    with pytest.raises(errors.RouterInUse):
        transaction.write(lambda s: routers.delete(
            s, PROJECT, routers.get(s, PROJECT, router["id"])))
    transaction.write(lambda s: ports.delete(s, ports.get(s, PROJECT, port["id"])))
    assert transaction.read(lambda s: floating_ips.record(
        s, floating_ips.get(s, PROJECT, fip["id"])))["port_id"] is None


def test_default_security_group_has_neutrons_rules(db):
    group = transaction.write(lambda s: security_groups.record(
        s, security_groups.get(s, Scope("p9"), security_groups.ensure_default(s, "p9"))))
    assert group["name"] == "default"
    rules = {(r["direction"], r["ethertype"], r["remote_group_id"])
             for r in group["security_group_rules"]}
    assert rules == {("egress", "IPv4", None), ("egress", "IPv6", None),
                     ("ingress", "IPv4", group["id"]), ("ingress", "IPv6", group["id"])}


@pytest.mark.parametrize("rule, error", [
    ({"direction": "up"}, errors.InvalidInput),
    ({"direction": "ingress", "protocol": "bogus"}, errors.InvalidInput),
    ({"direction": "ingress", "protocol": "tcp", "port_range_min": 30,
      "port_range_max": 20}, errors.InvalidInput),
    ({"direction": "ingress", "protocol": "gre", "port_range_min": 1}, errors.InvalidInput),
    ({"direction": "ingress", "ethertype": "IPv6", "remote_ip_prefix": "10.0.0.0/8"},
     errors.BadRequest),
])
def test_bad_rules_are_refused(db, rule, error):
    def make(s):
        group = security_groups.create(s, "p1", {"name": "web"})
        return security_groups.create_rule(s, PROJECT, "p1",
                                           {"security_group_id": group["id"], **rule})
    with pytest.raises(error):
        transaction.write(make)


def test_duplicate_rule_is_a_conflict(db):
    group = transaction.write(lambda s: security_groups.create(s, "p1", {"name": "web"}))
    rule = {"security_group_id": group["id"], "direction": "ingress", "protocol": "tcp",
            "port_range_min": 22, "port_range_max": 22}
    transaction.write(lambda s: security_groups.create_rule(s, PROJECT, "p1", rule))
    with pytest.raises(errors.SecurityGroupRuleExists):
        transaction.write(lambda s: security_groups.create_rule(s, PROJECT, "p1", rule))


def test_a_list_is_narrowed_in_sql_by_the_columns_given(make_network):
    """A boot that names no network lists the project's unshared and the shared ones:
    the database picks them, and reads no subnet or segment when none is left."""
    mine, _ = make_network(project="p1")
    make_network(project="p2")
    shared = transaction.write(lambda s: networks.create(s, "p2", {"name": "s", "shared": True},
                                                         {}))

    def listed(scope, equals):
        return {n["id"] for n in transaction.read(
            lambda s: networks.list_records(s, scope, equals))}

    assert listed(ADMIN, [("project_id", ["p1"]), ("shared", [False])]) == {mine["id"]}
    assert listed(PROJECT, [("shared", [True])]) == {shared["id"]}
    assert listed(ADMIN, [("project_id", ["p1", "p2"]), ("project_id", ["p2"]),
                          ("name", ["s"])]) == {shared["id"]}
    assert listed(ADMIN, [("name", [])]) == set()
    with statements() as seen:
        assert listed(ADMIN, [("project_id", ["p3"])]) == set()
    assert len(seen) == 1
