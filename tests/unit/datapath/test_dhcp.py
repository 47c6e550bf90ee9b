"""What the DHCP server is told to serve: dnsmasq's command line, hosts and options."""

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
