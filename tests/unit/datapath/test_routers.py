"""The NAT a router's namespace gets."""

from novalite.datapath import bridges, routers

PRIVATE = bridges.Segment("net-private", "vxlan", 7, None, 1450)
PUBLIC = bridges.Segment("net-public", "flat", None, "public", 1500)


def _config(snat: bool = True, *floating: tuple[str, str]) -> routers.RouterConfig:
    return routers.RouterConfig(
        "r1", (routers.RouterPort("i1", "fa:16:3e:00:00:01", ("10.0.0.1/26",), PRIVATE),),
        routers.RouterPort("g1", "fa:16:3e:00:00:02", ("172.24.4.10/24",), PUBLIC),
        "172.24.4.1", snat, floating)


def test_project_networks_leave_by_the_gateway_address_and_floating_ips_both_ways():
    rules = routers.nat_rules(_config(True, ("172.24.4.20", "10.0.0.5")), "ns-g1")
    assert "ip daddr 172.24.4.20 dnat to 10.0.0.5" in rules
    lines = rules.splitlines()
    # a floating IP's own SNAT comes before the router's
    assert lines.index('    ip saddr 10.0.0.5 oifname "ns-g1" snat to 172.24.4.20') < \
        lines.index('    oifname "ns-g1" ip saddr { 10.0.0.0/26 } snat to 172.24.4.10')


def test_without_snat_or_gateway_nothing_is_translated():
    assert "snat" not in routers.nat_rules(_config(False), "ns-g1")
    assert "nat to" not in routers.nat_rules(_config(True, ("172.24.4.20", "10.0.0.5")), None)
