"""Security groups as nftables rules in a host's namespace, against real traffic between
namespaces standing for guests: default deny in, stateful replies, port rules, ICMP
added to a running port, remote groups across hosts, and a port that lies about its
address (IPv4 or IPv6)."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator

import pytest

from novalite.datapath import bridges, firewall, linux, names
from tests.integration.datapath.conftest import guest_namespace, ping

NET = "11111111-2222-3333-4444-555555555555"
SEGMENT = bridges.Segment(NET, "vxlan", 77, None, 1450)
EGRESS = firewall.Rule("egress")
SSH = firewall.Rule("ingress", protocol="tcp", port_range_min=22, port_range_max=22)
ICMP = firewall.Rule("ingress", protocol="icmp")
ADDRESSES = {"a": "10.0.0.10", "b": "10.0.0.11", "c": "10.0.0.12"}


def _apply(host: str, ports: list[firewall.PortFilter]) -> None:
    firewall.apply(names.host_namespace(host), firewall.ruleset(ports))


def _port(name: str, *rules: firewall.Rule, secured: bool = True) -> firewall.PortFilter:
    return firewall.PortFilter(f"port-{name}", f"fa:16:3e:00:00:0{name}",
                               (ADDRESSES[name],), secured=secured, rules=rules)


@pytest.fixture
def guests(datapath) -> Iterator[dict[str, str]]:
    """Guests a and b on compute1, c on compute2, addressed; no rules yet."""
    found = {}
    for name, host in (("a", "compute1"), ("b", "compute1"), ("c", "compute2")):
        namespace = guest_namespace(name)
        device = bridges.plug_veth(host, SEGMENT, f"port-{name}", namespace,
                                   f"fa:16:3e:00:00:0{name}")
        linux.ip(namespace, "address", "add", f"{ADDRESSES[name]}/24", "dev", device)
        found[name] = namespace
    yield found


def _listening(namespace: str, port: int) -> subprocess.Popen:
    return subprocess.Popen(linux.in_namespace(namespace, [
        "busybox", "nc", "-l", "-p", str(port), "-e", "echo", "hello"]),
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _connects(namespace: str, address: str, port: int) -> bool:
    done = subprocess.run(linux.in_namespace(namespace, [
        "busybox", "nc", "-w", "2", address, str(port)]), input=b"", capture_output=True)
    return b"hello" in done.stdout


def test_only_what_the_rules_allow_comes_in_and_replies_go_back(guests):
    _apply("compute1", [_port("a", EGRESS), _port("b", EGRESS, SSH)])
    server = _listening(guests["b"], 22)
    try:
        assert not ping(guests["a"], ADDRESSES["b"])  # b lets in SSH only
        assert _connects(guests["a"], ADDRESSES["b"], 22)
        assert not ping(guests["b"], ADDRESSES["a"])  # a lets in nothing it did not ask

        _apply("compute1", [_port("a", EGRESS), _port("b", EGRESS, SSH, ICMP)])
        assert ping(guests["a"], ADDRESSES["b"])  # the running port took the new rule
    finally:
        server.kill()


def test_a_remote_group_lets_in_its_members_from_any_host(guests):
    from_a = firewall.Rule("ingress", protocol="icmp", remote_ips=(ADDRESSES["a"],))
    _apply("compute1", [_port("a", EGRESS), _port("b", EGRESS, from_a)])
    _apply("compute2", [_port("c", EGRESS)])

    assert ping(guests["a"], ADDRESSES["b"])
    assert not ping(guests["c"], ADDRESSES["b"])  # not a member, on the other host
    _apply("compute1", [_port("a", EGRESS), _port("b", EGRESS, firewall.Rule(
        "ingress", protocol="icmp", remote_ips=(ADDRESSES["a"], ADDRESSES["c"])))])
    assert ping(guests["c"], ADDRESSES["b"])


def test_a_port_sends_only_from_its_own_address_unless_unsecured(guests):
    _apply("compute1", [_port("a", EGRESS), _port("b", EGRESS, ICMP)])
    linux.ip(guests["a"], "address", "add", "10.0.0.99/24", "dev",
             next(n for n in linux.links(guests["a"]) if n != "lo"))
    assert ping(guests["a"], ADDRESSES["b"])
    assert not ping(guests["a"], ADDRESSES["b"], source="10.0.0.99")

    _apply("compute1", [_port("a", secured=False), _port("b", EGRESS, ICMP)])
    # The lie's unanswered ARP would otherwise hold back the next echo until it fails.
    linux.ip(guests["a"], "neigh", "flush", "all")
    assert ping(guests["a"], ADDRESSES["b"], source="10.0.0.99")


def test_a_port_sends_ipv6_only_from_its_own_addresses(guests):
    """b lets ICMPv6 in; a's port has an IPv6 address only in the second ruleset: before,
    its IPv6 sources other than link-local are dropped, as a port with none. Neither
    group lets IPv6 out but echoes: neighbour discovery goes anyway."""
    icmp6 = firewall.Rule("ingress", ethertype="IPv6", protocol="icmpv6")
    echo6 = firewall.Rule("egress", ethertype="IPv6", protocol="icmpv6", port_range_min=128)
    for name, address in (("a", "fd00::10"), ("b", "fd00::11")):
        device = next(n for n in linux.links(guests[name]) if n != "lo")
        linux.ip(guests[name], "address", "add", f"{address}/64", "dev", device, "nodad")
    b = firewall.PortFilter("port-b", "fa:16:3e:00:00:0b", (ADDRESSES["b"], "fd00::11"),
                            rules=(EGRESS, ICMP, icmp6))
    _apply("compute1", [_port("a", EGRESS, echo6), b])
    assert ping(guests["a"], ADDRESSES["b"])
    assert not ping(guests["a"], "fd00::11")

    owned = firewall.PortFilter("port-a", "fa:16:3e:00:00:0a", (ADDRESSES["a"], "fd00::10"),
                                rules=(EGRESS, echo6))
    _apply("compute1", [owned, b])
    linux.ip(guests["a"], "neigh", "flush", "all")  # its dropped solicitation failed
    assert ping(guests["a"], "fd00::11")


def test_the_installed_rules_are_known_by_their_digest(guests):
    script = firewall.ruleset([_port("a", EGRESS)])
    _apply("compute1", [_port("a", EGRESS)])
    assert firewall.installed(names.host_namespace("compute1")) == firewall.digest(script)
    assert firewall.installed(names.host_namespace("compute2")) is None  # none there yet
    _apply("compute1", [_port("a", EGRESS, ICMP)])
    assert firewall.installed(names.host_namespace("compute1")) != firewall.digest(script)
