"""Hosts on the underlay, bridges with VXLAN or physical-network uplinks, and DHCP, built
for real in namespaces; "guests" are namespaces plugged into the bridges by a veth (the
qemu driver's tests plug real guests' taps the same way)."""

from __future__ import annotations

import os

from novalite.datapath import bridges, dhcp, linux, names, underlay
from tests.integration.datapath.conftest import dhcp_client, guest_namespace, ping

NET = "11111111-2222-3333-4444-555555555555"
OTHER = "99999999-2222-3333-4444-555555555555"
VXLAN = bridges.Segment(NET, "vxlan", 77, None, 1450)


def _dhcp_network(segment: bridges.Segment, hosts: dict[str, str]) -> dhcp.DhcpNetwork:
    return dhcp.DhcpNetwork(
        segment, "d0000000-dhcp-port", "fa:16:3e:00:00:02", ("10.0.0.2/26",),
        (dhcp.DhcpSubnet("subnet-1", "10.0.0.0/26", "10.0.0.1", ("10.0.0.1",)),),
        tuple(dhcp.DhcpHost(mac, ip) for mac, ip in hosts.items()))


def _guest(name: str, host: str, segment: bridges.Segment, mac: str) -> tuple[str, str]:
    namespace = guest_namespace(name)
    device = bridges.plug_veth(host, segment, f"port-{name}", namespace, mac)
    return namespace, device


def test_guests_on_two_hosts_get_their_addresses_and_reach_each_other(datapath, tmp_path):
    a, a_dev = _guest("a", "compute1", VXLAN, "fa:16:3e:00:00:0a")
    b, b_dev = _guest("b", "compute2", VXLAN, "fa:16:3e:00:00:0b")
    server = dhcp.DhcpServer("network", str(tmp_path / "dhcp"))
    server.ensure(_dhcp_network(VXLAN, {"fa:16:3e:00:00:0a": "10.0.0.10",
                                        "fa:16:3e:00:00:0b": "10.0.0.11"}))

    # the DHCP server is on a third host: the offers cross VXLAN
    assert dhcp_client(a, a_dev, tmp_path) == "10.0.0.10/26 10.0.0.1 1450"
    assert dhcp_client(b, b_dev, tmp_path) == "10.0.0.11/26 10.0.0.1 1450"
    linux.ip(a, "address", "add", "10.0.0.10/26", "dev", a_dev)
    linux.ip(b, "address", "add", "10.0.0.11/26", "dev", b_dev)
    assert ping(a, "10.0.0.11")
    assert server.served() == {NET}


def test_a_port_added_later_is_served_without_restarting_dnsmasq(datapath, tmp_path):
    server = dhcp.DhcpServer("network", str(tmp_path / "dhcp"))
    server.ensure(_dhcp_network(VXLAN, {}))
    pid = (tmp_path / "dhcp" / NET / "pid").read_text()
    c, c_dev = _guest("c", "compute1", VXLAN, "fa:16:3e:00:00:0c")

    server.ensure(_dhcp_network(VXLAN, {"fa:16:3e:00:00:0c": "10.0.0.12"}))

    assert dhcp_client(c, c_dev, tmp_path).startswith("10.0.0.12/26 ")
    assert (tmp_path / "dhcp" / NET / "pid").read_text() == pid
    assert os.path.exists(f"/proc/{pid.strip()}")


def test_an_unknown_mac_gets_no_address(datapath, tmp_path):
    server = dhcp.DhcpServer("network", str(tmp_path / "dhcp"))
    server.ensure(_dhcp_network(VXLAN, {"fa:16:3e:00:00:0a": "10.0.0.10"}))
    stranger, device = _guest("x", "compute1", VXLAN, "fa:16:3e:00:00:ff")

    try:
        found = dhcp_client(stranger, device, tmp_path, tries=2)
    except linux.DatapathError:
        found = ""
    assert found == ""


def test_networks_are_apart_and_the_last_port_takes_its_bridge_along(datapath, tmp_path):
    other = bridges.Segment(OTHER, "vxlan", 78, None, 1450)
    a, a_dev = _guest("a", "compute1", VXLAN, "fa:16:3e:00:00:0a")
    b, b_dev = _guest("b", "compute2", other, "fa:16:3e:00:00:0b")
    linux.ip(a, "address", "add", "10.0.0.10/26", "dev", a_dev)
    linux.ip(b, "address", "add", "10.0.0.11/26", "dev", b_dev)
    assert not ping(a, "10.0.0.11")  # same addresses, other VNI

    host = names.host_namespace("compute1")
    assert {names.bridge(NET), "vxlan-77"} <= linux.links(host).keys()
    bridges.unplug("compute1", names.port_device("port-a"))
    assert linux.links(host).keys() == {"lo", names.HOST_UNDERLAY_PORT}
    assert names.bridge(OTHER) in linux.links(names.host_namespace("compute2"))


def test_flat_and_vlan_networks_ride_their_physical_network(datapath, tmp_path):
    flat = bridges.Segment(NET, "flat", None, "public", 1500)
    vlan = bridges.Segment(OTHER, "vlan", 100, "public", 1500)
    a, a_dev = _guest("a", "compute1", flat, "fa:16:3e:00:00:0a")
    b, b_dev = _guest("b", "compute2", flat, "fa:16:3e:00:00:0b")
    c, c_dev = _guest("c", "compute2", vlan, "fa:16:3e:00:00:0c")
    for namespace, device, address in ((a, a_dev, "172.24.4.10/24"),
                                       (b, b_dev, "172.24.4.11/24"),
                                       (c, c_dev, "172.24.4.12/24")):
        linux.ip(namespace, "address", "add", address, "dev", device)

    assert ping(a, "172.24.4.11")
    assert not ping(a, "172.24.4.12")  # tagged: not on the flat network


def test_a_host_rejoins_the_underlay_after_losing_its_namespace(datapath, tmp_path):
    underlay.attach("compute1")
    linux.delete_namespace(names.host_namespace("compute1"))  # a machine reboot's loss

    a, a_dev = _guest("a", "compute1", VXLAN, "fa:16:3e:00:00:0a")
    b, b_dev = _guest("b", "compute2", VXLAN, "fa:16:3e:00:00:0b")
    linux.ip(a, "address", "add", "10.0.0.10/26", "dev", a_dev)
    linux.ip(b, "address", "add", "10.0.0.11/26", "dev", b_dev)
    assert ping(a, "10.0.0.11")
