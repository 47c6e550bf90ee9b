"""Networks over HTTP: the MTU each network type can carry ([DEFAULT]
global_physnet_mtu, [ml2] path_mtu and physical_network_mtus) and the subnets an MTU
allows, and the provider segments ML2's type drivers accept, with Neutron's texts."""

from __future__ import annotations

import pytest

from tests.functional.network.neutron import error


def _network(net, **attrs) -> dict:
    made = net.post("/networks", json={"network": {"name": "n", **attrs}})
    assert made.status_code == 201, made.text
    return made.json()["network"]


def _vlan(physnet: str | None = "physnet1", tag: int | None = None) -> dict:
    return {"provider:network_type": "vlan", "provider:physical_network": physnet,
            "provider:segmentation_id": tag}


def test_a_network_takes_the_largest_mtu_of_its_type_by_default(net, conf):
    assert _network(net)["mtu"] == 1450  # VXLAN: 1500 less its 50 bytes of headers
    assert _network(net, **_vlan())["mtu"] == 1500
    conf.set_override("path_mtu", 9000, group="ml2")
    conf.set_override("global_physnet_mtu", 9000)
    conf.set_override("physical_network_mtus", {"physnet1": "1400"}, group="ml2")
    assert _network(net)["mtu"] == 8950
    assert _network(net, **_vlan())["mtu"] == 1400


@pytest.mark.parametrize(("attrs", "largest"), [({}, 1450), (_vlan(), 1500)])
def test_an_mtu_beyond_the_types_is_refused_on_create_and_update(net, attrs, largest):
    message = error(net.post("/networks", json={"network": {"mtu": largest + 1, **attrs}}),
                    400, "InvalidInput")
    assert message == (f"Invalid input for operation: Requested MTU is too big, maximum "
                       f"is {largest}.")
    network = _network(net, mtu=1300, **attrs)
    assert network["mtu"] == 1300
    path = f"/networks/{network['id']}"
    error(net.put(path, json={"network": {"mtu": largest + 1}}), 400, "InvalidInput")
    assert net.put(path, json={"network": {"mtu": 0}}).json()["network"]["mtu"] == largest
    message = error(net.put(path, json={"network": {"mtu": -1}}), 400, "HTTPBadRequest")
    assert message == "Invalid input for mtu. Reason: '-1' should be non-negative."


def test_an_mtu_too_small_for_a_subnet_is_a_conflict(net):
    small = _network(net, mtu=1200)
    message = error(net.post("/subnets", json={"subnet": {
        "network_id": small["id"], "cidr": "fd00:12::/64", "ip_version": 6}}),
        409, "NetworkMTUSubnetConflict")
    assert message == f"MTU of {small['id']} is not valid, subnet requires a minimum of 1280"
    v4 = net.post("/subnets", json={"subnet": {"network_id": small["id"],
                                               "cidr": "10.12.0.0/24", "ip_version": 4}})
    assert v4.status_code == 201, v4.text
    message = error(net.put(f"/networks/{small['id']}", json={"network": {"mtu": 67}}),
                    409, "NetworkMTUSubnetConflict")
    assert message.endswith("subnet requires a minimum of 68")
    tiny = _network(net, mtu=60)  # no subnet yet: Neutron lets it be
    message = error(net.post("/subnets", json={"subnet": {
        "network_id": tiny["id"], "cidr": "10.13.0.0/24", "ip_version": 4}}),
        409, "NetworkMTUSubnetConflict")
    assert message.endswith("subnet requires a minimum of 68")
    with_v6 = _network(net)
    net.post("/subnets", json={"subnet": {"network_id": with_v6["id"],
                                          "cidr": "fd00:14::/64", "ip_version": 6}})
    error(net.put(f"/networks/{with_v6['id']}", json={"network": {"mtu": 1279}}),
          409, "NetworkMTUSubnetConflict")


@pytest.mark.parametrize(("provider", "message"), [
    (_vlan("physnet9", 10), "physical_network 'physnet9' unknown for VLAN provider network"),
    (_vlan(None, 10), "segmentation_id requires physical_network for VLAN provider network"),
    (_vlan("physnet1", 0), "segmentation_id out of range (1 through 4094)"),
    (_vlan("physnet1", 4095), "segmentation_id out of range (1 through 4094)"),
    ({"provider:network_type": "flat", "provider:physical_network": "p9",
      "provider:segmentation_id": 5}, "segmentation_id prohibited for flat provider network"),
    ({"provider:network_type": "flat"}, "physical_network required for flat provider network"),
    ({"provider:network_type": "vxlan", "provider:physical_network": "physnet1"},
     "provider:physical_network specified for vxlan network"),
    ({"provider:network_type": "gre"}, "network_type value 'gre' not supported"),
])
def test_provider_segments_are_checked_as_ml2s_type_drivers_do(net, provider, message):
    refused = net.post("/networks", json={"network": {"name": "p", **provider}})
    assert error(refused, 400, "InvalidInput") == f"Invalid input for operation: {message}."


def test_vlan_tags_come_from_the_configured_ranges_unless_named(net, conf):
    conf.set_override("network_vlan_ranges", ["physnet1:100:101", "physnet2"],
                      group="ml2_type_vlan")
    assert _network(net, **_vlan(tag=2000))["provider:segmentation_id"] == 2000
    picked = {_network(net, **_vlan())["provider:segmentation_id"] for _ in range(2)}
    assert picked == {100, 101}
    error(net.post("/networks", json={"network": _vlan()}), 503, "NoNetworkAvailable")
    other = _network(net, **_vlan("physnet2"))
    assert 1 <= other["provider:segmentation_id"] <= 4094
    message = error(net.post("/networks", json={"network": _vlan(tag=2000)}), 409,
                    "VlanIdInUse")
    assert message == ("Unable to create the network. The VLAN 2000 on physical network "
                       "physnet1 is in use.")


def test_a_tunnel_id_or_flat_physical_network_in_use_is_a_conflict(net):
    # far above the 16 lowest free VNIs a project network is given one of at random
    vxlan = {"provider:network_type": "vxlan", "provider:segmentation_id": 907}
    flat = {"provider:network_type": "flat", "provider:physical_network": "physnet3"}
    for provider, kind, message in (
            (vxlan, "TunnelIdInUse", "Unable to create the network. The tunnel ID 907 is "
                                     "in use."),
            (flat, "FlatNetworkInUse", "Unable to create the flat network. Physical "
                                       "network physnet3 is in use.")):
        _network(net, **provider)
        refused = net.post("/networks", json={"network": {"name": "again", **provider}})
        assert error(refused, 409, kind) == message


def test_a_subnets_ip_version_is_4_or_6(net):
    network = _network(net)
    refused = net.post("/subnets", json={"subnet": {
        "network_id": network["id"], "cidr": "10.15.0.0/24", "ip_version": 5}})
    assert error(refused, 400, "HTTPBadRequest") == \
        "Invalid input for ip_version. Reason: 5 is not in valid_values."


@pytest.mark.parametrize(("collection", "resource"), [("networks", "network"),
                                                      ("routers", "router")])
def test_availability_zone_hints_name_zones_that_exist(net, collection, resource):
    message = error(net.post(f"/{collection}", json={resource: {
        "name": "az", "availability_zone_hints": ["nova", "az9"]}}),
        404, "AvailabilityZoneNotFound")
    assert message == "AvailabilityZone az9 could not be found."
    made = net.post(f"/{collection}", json={resource: {
        "name": "az", "availability_zone_hints": ["nova"]}})
    assert made.status_code == 201, made.text
    shown = net.get(f"/{collection}/{made.json()[resource]['id']}").json()[resource]
    assert (shown["availability_zone_hints"], shown["availability_zones"]) == (
        ["nova"], ["nova"])
    zones = net.get("/availability_zones", params={"resource": resource}).json()
    assert [z["name"] for z in zones["availability_zones"]] == ["nova"]
