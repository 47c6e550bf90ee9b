"""IPv6 as a guest on a project network meets it, in namespaces: its router advertises
each subnet with the flags of its ipv6_ra_mode, the host forms its SLAAC address (the
one IPAM gave its port) or asks DHCPv6 and gets it from the network's DHCP server alone
(the router stays silent); all through a host firewall whose groups let nothing in."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from novalite.datapath import bridges, dhcp, firewall, linux, names, ra, routers, underlay
from novalite.network import ipam
from tests.integration.datapath import ipv6_clients
from tests.integration.datapath.conftest import guest_namespace, ping
from tests.waiting import wait_for

PRIVATE = bridges.Segment("11111111-2222-3333-4444-555555555555", "vxlan", 77, None, 1450)
PREFIX, GATEWAY, DNS = "fd00:1::/64", "fd00:1::1", ("fd00:1::53",)
ROUTER_MAC, DHCP_MAC, GUEST_MAC = "fa:16:3e:00:00:01", "fa:16:3e:00:00:02", "fa:16:3e:00:00:0a"
STATEFUL_ADDRESS = "fd00:1::55"


def _router(tmp_path, mode: str) -> None:
    port = routers.RouterPort("rif-port", ROUTER_MAC, ("10.0.0.1/26", f"{GATEWAY}/64"),
                              PRIVATE, (ra.Prefix("v6", PREFIX, mode, DNS),))
    routers.Routers("network", str(tmp_path / "routers")).ensure(
        routers.RouterConfig("r0000000-0000-0000-0000-000000000001", (port,)))


def _dhcp_server(tmp_path, *hosts: dhcp.DhcpHost) -> None:
    dhcp.DhcpServer("network", str(tmp_path / "dhcp")).ensure(dhcp.DhcpNetwork(
        PRIVATE, "dhcp-port", DHCP_MAC, ("fd00:1::2/64",),
        (dhcp.DhcpSubnet("v6", PREFIX, GATEWAY, DNS),), hosts))


@pytest.fixture
def guest(datapath) -> Iterator[tuple[str, str, ipv6_clients.socket.socket]]:
    """A guest's namespace plugged into `private` on compute1 behind a firewall that
    lets nothing in and everything out: its namespace, its device, and a listener that
    was hearing ICMPv6 before its link came up."""
    underlay.attach("compute1")
    addresses = ("10.0.0.10", ipam.eui64(PREFIX, GUEST_MAC), STATEFUL_ADDRESS)
    firewall.apply(names.host_namespace("compute1"), firewall.ruleset([firewall.PortFilter(
        "port-vm", GUEST_MAC, addresses, rules=(firewall.Rule("egress"),
                                                firewall.Rule("egress", ethertype="IPv6")))]))
    namespace = guest_namespace("vm")
    listener = ipv6_clients.listen(namespace)
    device = bridges.plug_veth("compute1", PRIVATE, "port-vm", namespace, GUEST_MAC)
    yield namespace, device, listener


def test_a_slaac_subnet_is_advertised_and_the_guest_forms_its_ports_address(guest,
                                                                              tmp_path):
    namespace, device, listener = guest
    _router(tmp_path, "slaac")

    advert = ipv6_clients.advertisement(listener)
    assert advert.source == "fe80::f816:3eff:fe00:1"  # the router's link-local address
    assert (advert.managed, advert.other) == (False, False)
    assert advert.prefixes == {PREFIX: "LA"}
    assert (advert.mtu, advert.dns, advert.router_lifetime) == (1450, list(DNS), 300)
    address = ipam.eui64(PREFIX, GUEST_MAC)
    wait_for(lambda: ipv6_clients.global_addresses(namespace, device) == [address],
             timeout=10, what="the SLAAC address")
    assert "via fe80::f816:3eff:fe00:1" in linux.ip(namespace, "-6", "route", "show",
                                                    "default")
    assert ping(namespace, GATEWAY)


def test_a_stateful_subnet_has_the_guest_ask_the_dhcp_server_for_its_address(guest,
                                                                              tmp_path):
    namespace, device, listener = guest
    _dhcp_server(tmp_path, dhcp.DhcpHost(GUEST_MAC, STATEFUL_ADDRESS))
    _router(tmp_path, "dhcpv6-stateful")

    advert = ipv6_clients.advertisement(listener)
    assert advert.managed and advert.prefixes == {PREFIX: "L"}  # no address of its own
    reply, = ipv6_clients.dhcpv6(namespace, device, GUEST_MAC)  # the router is silent
    assert reply.source == "fe80::f816:3eff:fe00:2"  # the DHCP port's
    assert (reply.addresses, reply.dns, reply.status) == ([STATEFUL_ADDRESS], list(DNS), 0)
    assert ipv6_clients.global_addresses(namespace, device) == []


def test_a_stateless_subnet_gives_options_by_dhcpv6_and_addresses_by_slaac(guest,
                                                                           tmp_path):
    namespace, device, listener = guest
    _dhcp_server(tmp_path)
    _router(tmp_path, "dhcpv6-stateless")

    advert = ipv6_clients.advertisement(listener)
    assert (advert.managed, advert.other) == (False, True)
    assert advert.prefixes == {PREFIX: "LA"}
    reply, = ipv6_clients.dhcpv6(namespace, device, GUEST_MAC, stateful=False)
    assert (reply.addresses, reply.dns) == ([], list(DNS))
    address = ipam.eui64(PREFIX, GUEST_MAC)
    wait_for(lambda: ipv6_clients.global_addresses(namespace, device) == [address],
             timeout=10, what="the SLAAC address")
