"""What a router's advertiser is told to send: dnsmasq's command line per ipv6_ra_mode."""

from novalite.datapath import ra


def _argv(*prefixes: ra.Prefix, mtu: int | None = 1450) -> list[str]:
    return ra.command([ra.Link("ns-port1", prefixes, mtu)], "/state/routers/r1")


def test_each_ra_mode_gets_the_dnsmasq_range_that_sends_its_flags():
    argv = _argv(ra.Prefix("a", "fd00:a::/64", "slaac"),
                 ra.Prefix("b", "fd00:b::/64", "dhcpv6-stateless"),
                 ra.Prefix("c", "fd00:c::/64", "dhcpv6-stateful"))
    assert [a for a in argv if a.startswith("--dhcp-range=")] == [
        "--dhcp-range=set:subnet-a,fd00:a::,ra-only,64",  # A
        "--dhcp-range=set:subnet-b,fd00:b::,ra-stateless,64",  # A and O
        "--dhcp-range=set:subnet-c,fd00:c::,static,64"]  # M, no A


def test_it_advertises_only_and_never_answers_dhcpv6():
    argv = _argv(ra.Prefix("c", "fd00:c::/64", "dhcpv6-stateful"))
    assert "--enable-ra" in argv and "--dhcp-ignore=tag:!known" in argv
    assert "--port=0" in argv and "--interface=ns-port1" in argv
    assert not any(a.startswith(("--dhcp-hostsfile", "--dhcp-optsfile")) for a in argv)


def test_the_mtu_router_lifetime_and_dns_servers_are_advertised():
    argv = _argv(ra.Prefix("a", "fd00:a::/64", "slaac", ("fd00:a::53", "2001:db8::53")))
    assert "--ra-param=ns-port1,mtu:1450,100,300" in argv
    assert "--dhcp-option=tag:subnet-a,option6:dns-server,[fd00:a::53],[2001:db8::53]" \
        in argv


def test_an_mtu_below_ipv6s_minimum_is_not_advertised():
    assert "--ra-param=ns-port1,100,300" in _argv(ra.Prefix("a", "fd00:a::/64", "slaac"),
                                                  mtu=1000)
