"""The nftables script rendered from ports and their rules."""

from novalite.datapath import firewall


def _port(*rules: firewall.Rule, **values) -> firewall.PortFilter:
    return firewall.PortFilter(**{"port_id": "0123456789abcdef", "mac": "fa:16:3e:00:00:05",
                                  "ips": ("10.0.0.5",), "rules": rules, **values})


def test_the_script_replaces_both_tables_in_one_transaction():
    script = firewall.ruleset([])
    assert script.startswith("table bridge novalite_ports\n"
                             "delete table bridge novalite_ports\n"
                             "table inet novalite_security_groups\n"
                             "delete table inet novalite_security_groups\n")


def test_rules_become_matches_on_the_remote_side_with_protocol_and_ports():
    script = firewall.ruleset([_port(
        firewall.Rule("ingress", protocol="tcp", port_range_min=22, port_range_max=22,
                      remote_ip_prefix="192.168.0.0/16"),
        firewall.Rule("ingress", protocol="17", port_range_min=5000, port_range_max=5010),
        firewall.Rule("ingress", protocol="icmp", port_range_min=8, port_range_max=0),
        firewall.Rule("egress", ethertype="IPv6"))])
    assert "meta nfproto ipv4 ip saddr 192.168.0.0/16 meta l4proto 6 th dport 22 accept" \
        in script
    assert "meta nfproto ipv4 meta l4proto 17 th dport 5000-5010 accept" in script
    assert "meta nfproto ipv4 meta l4proto 1 icmp type 8 icmp code 0 accept" in script
    assert "meta nfproto ipv6 return" in script  # egress rules hand on to the receiver


def test_a_remote_group_without_members_matches_nothing():
    empty = firewall.Rule("ingress", protocol="icmp", remote_ips=())
    member = firewall.Rule("ingress", remote_ips=("10.0.0.7", "fd00::7"))
    chain = firewall.ruleset([_port(empty, member)]).split("chain ingress_1 {")[1]
    lines = [line.strip() for line in chain.split("}\n")[0].splitlines()]
    assert "meta nfproto ipv4 ip saddr { 10.0.0.7 } accept" in lines
    assert not any("l4proto 1" in line for line in lines)


def test_ports_are_told_apart_by_marks_and_spoofing_is_dropped():
    script = firewall.ruleset([
        _port(port_id="aaaaaaaaaaaa"),
        _port(port_id="bbbbbbbbbbbb", ips=("10.0.0.6",), mac="fa:16:3e:00:00:06",
              allowed_pairs=(("fa:16:3e:00:00:99", "10.0.9.0/24"),))])
    assert 'iifname "tapaaaaaaaaaaa" meta mark set meta mark & 0x0000ffff | 0x00010000' \
        in script
    assert 'oifname "tapbbbbbbbbbbb" meta mark set meta mark & 0xffff0000 | 0x00000002' \
        in script
    assert ('iifname "tapbbbbbbbbbbb" ether saddr != { fa:16:3e:00:00:06, '
            'fa:16:3e:00:00:99 } drop') in script
    assert 'iifname "tapbbbbbbbbbbb" ether type ip ip saddr != { 10.0.0.6, 10.0.9.0/24 } ' \
        'drop' in script
    assert "meta mark & 0x0000ffff == 0x00000002 jump ingress_2" in script


def test_a_port_sends_ipv6_only_from_its_addresses_and_link_local_and_dad_from_none():
    script = firewall.ruleset([_port(port_id="aaaaaaaaaaaa"),
                               _port(port_id="bbbbbbbbbbbb", ips=("10.0.0.6", "fd00::6"))])
    assert 'iifname "tapaaaaaaaaaaa" ip6 saddr != { fe80::/10 } drop' in script
    assert 'iifname "tapbbbbbbbbbbb" ip6 saddr != { fe80::/10, fd00::6 } drop' in script
    assert ('iifname "tapaaaaaaaaaaa" ip6 saddr :: ip6 daddr ff02::/16 icmpv6 type '
            f"{{ {firewall.UNSPECIFIED_SOURCE_TYPES} }} accept") in script
    lines = script.splitlines()
    dad = next(i for i, line in enumerate(lines) if "ip6 saddr ::" in line)
    assert dad < next(i for i, line in enumerate(lines) if "ip6 saddr !=" in line)


def test_an_unsecured_port_is_not_filtered():
    assert "tapaaaaaaaaaaa" not in firewall.ruleset([_port(port_id="aaaaaaaaaaaa",
                                                           secured=False)])


def test_the_script_names_its_own_digest():
    one, other = firewall.ruleset([_port()]), firewall.ruleset([_port(port_id="other")])
    assert firewall.digest(one) == firewall.digest(firewall.ruleset([_port()]))
    assert firewall.digest(one) != firewall.digest(other)
    assert firewall.digest("table inet x {\n}") is None


def _chain(script: str, name: str) -> list[str]:
    body = script.split(f"chain {name} {{\n")[1].split("\n  }")[0]
    return [line.strip() for line in body.splitlines()]


def test_a_port_is_a_dhcp_and_dhcpv6_client_whatever_its_groups_say():
    script = firewall.ruleset([_port()])  # no rule at all
    egress, ingress = _chain(script, "egress_1"), _chain(script, "ingress_1")
    assert "udp sport 546 udp dport 547 return" in egress
    assert "udp sport 68 udp dport 67 return" in egress
    assert egress[-1] == "drop" and ingress[-1] == "drop"
    # a DHCPv6 answer is unicast to a request sent to a group: conntrack cannot match it
    assert "ip6 saddr fe80::/64 udp sport 547 udp dport 546 accept" in ingress
    assert "udp sport 67 udp dport 68 accept" in ingress


def test_router_advertisements_come_in_and_a_guest_never_sends_one_or_serves_dhcp():
    script = firewall.ruleset([_port(port_id="aaaaaaaaaaaa")])
    assert any("nd-router-advert" in line and line.endswith("accept")
               for line in _chain(script, "ingress_1"))
    assert 'iifname "tapaaaaaaaaaaa" icmpv6 type nd-router-advert drop' in script
    assert 'iifname "tapaaaaaaaaaaa" udp sport { 67, 547 } drop' in script
