"""What the DHCP server is told to serve: dnsmasq's command line, hosts and options."""

import pytest

from novalite.datapath import bridges, dhcp

SEGMENT = bridges.Segment("net-1", "vxlan", 7, None, 1450)


def _network(**subnet) -> dhcp.DhcpNetwork:
    values = {"id": "s1", "cidr": "10.0.0.0/26", "gateway_ip": "10.0.0.1", **subnet}
    return dhcp.DhcpNetwork(SEGMENT, "dport", "fa:16:3e:00:00:02", ("10.0.0.2/26",),
                            (dhcp.DhcpSubnet(**values),),
                            (dhcp.DhcpHost("fa:16:3e:00:00:05", "10.0.0.5"),))


def test_only_known_ports_get_addresses_with_neutrons_host_names():
    assert dhcp._hosts_file(_network()) == "fa:16:3e:00:00:05,host-10-0-0-5,10.0.0.5\n"


def test_options_carry_gateway_dns_mtu_and_routes():
    opts = dhcp._opts_file(_network(dns_nameservers=("8.8.8.8", "1.1.1.1"),
                                    host_routes=(("192.168.0.0/24", "10.0.0.9"),)))
    assert opts.splitlines() == [
        "tag:subnet-s1,option:router,10.0.0.1",
        "tag:subnet-s1,option:dns-server,8.8.8.8,1.1.1.1",
        "tag:subnet-s1,option:mtu,1450",
        # with classless routes a client ignores the router option: the default is in them
        "tag:subnet-s1,option:classless-static-route,192.168.0.0/24,10.0.0.9,"
        "0.0.0.0/0,10.0.0.1"]


def test_a_subnet_without_gateway_gives_no_router():
    assert "tag:subnet-s1,option:router\n" in dhcp._opts_file(_network(gateway_ip=None))


def test_ranges_are_static_with_the_configured_lease(conf):
    conf.set_override("dhcp_lease_duration", -1)
    argv = dhcp.DhcpServer._command(_network(), "ns-dport", "/state/dhcp/net-1")
    assert "--dhcp-range=set:subnet-s1,10.0.0.0,static,255.255.255.192,infinite" in argv
    assert "--interface=ns-dport" in argv and "--port=0" in argv


def _dual_stack() -> dhcp.DhcpNetwork:
    v6 = dhcp.DhcpSubnet("s6", "fd00:1::/64", "fd00:1::1", ("fd00:1::53", "2001:db8::53"))
    return dhcp.DhcpNetwork(SEGMENT, "dport", "fa:16:3e:00:00:02",
                            ("10.0.0.2/26", "fd00:1::2/64"),
                            (dhcp.DhcpSubnet("s1", "10.0.0.0/26", "10.0.0.1"), v6),
                            (dhcp.DhcpHost("fa:16:3e:00:00:05", "10.0.0.5"),
                             dhcp.DhcpHost("fa:16:3e:00:00:05", "fd00:1::5")))


def test_an_ipv6_range_is_static_on_its_prefix_length(conf):
    conf.set_override("dhcp_lease_duration", 600)
    argv = dhcp.DhcpServer._command(_dual_stack(), "ns-dport", "/state/dhcp/net-1")
    assert "--dhcp-range=set:subnet-s6,fd00:1::,static,64,600s" in argv
    assert "--dhcp-range=set:subnet-s1,10.0.0.0,static,255.255.255.192,600s" in argv


def test_a_dual_stack_port_has_a_line_per_address_ipv6_in_brackets():
    assert dhcp._hosts_file(_dual_stack()).splitlines() == [
        "fa:16:3e:00:00:05,host-10-0-0-5,10.0.0.5",
        "fa:16:3e:00:00:05,host-fd00-1--5,[fd00:1::5]"]


def test_ipv6_options_are_only_the_dns_servers():
    opts = dhcp._opts_file(_dual_stack()).splitlines()
    assert [line for line in opts if "subnet-s6" in line] == [
        "tag:subnet-s6,option6:dns-server,[fd00:1::53],[2001:db8::53]"]


@pytest.mark.parametrize(("cidr", "address_mode", "ra_mode", "served"), [
    ("10.0.0.0/24", None, None, True),
    ("fd00::/64", "dhcpv6-stateful", "dhcpv6-stateful", True),
    ("fd00::/64", "dhcpv6-stateless", None, True),
    ("fd00::/64", None, None, True),  # neither mode: Neutron's static DHCPv6 of old
    ("fd00::/64", "slaac", "slaac", False),
    ("fd00::/64", None, "dhcpv6-stateful", False),  # the router advertises, none serves
    ("fd00::/56", "dhcpv6-stateful", None, False),  # shorter than dnsmasq's /64
])
def test_which_subnets_dnsmasq_serves_as_neutrons_does(cidr, address_mode, ra_mode, served):
    assert dhcp.serves(cidr, address_mode, ra_mode) is served


def test_stateless_subnets_lease_no_address():
    assert dhcp.leases("dhcpv6-stateful") and dhcp.leases(None)
    assert not dhcp.leases("dhcpv6-stateless")
