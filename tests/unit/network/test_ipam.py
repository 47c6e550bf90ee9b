"""Allocation pools, address checks and SLAAC addresses (no database)."""

from __future__ import annotations

import ipaddress
from types import SimpleNamespace

import pytest

from novalite.network import errors, ipam


def test_default_pools_skip_network_broadcast_and_gateway():
    assert ipam.default_pools("10.0.0.0/26", "10.0.0.1") == [
        {"start": "10.0.0.2", "end": "10.0.0.62"}]
    assert ipam.default_pools("10.0.0.0/24", "10.0.0.100") == [
        {"start": "10.0.0.1", "end": "10.0.0.99"}, {"start": "10.0.0.101", "end": "10.0.0.254"}]
    assert ipam.default_pools("10.0.0.0/24", None) == [
        {"start": "10.0.0.1", "end": "10.0.0.254"}]


def test_default_pools_of_ipv6_keep_the_last_address():
    assert ipam.default_pools("fd00::/64", "fd00::1") == [
        {"start": "fd00::2", "end": "fd00::ffff:ffff:ffff:ffff"}]


@pytest.mark.parametrize("pools, error", [
    ([{"start": "10.0.0.1", "end": "10.0.0.9"}], errors.GatewayConflictWithAllocationPools),
    ([{"start": "10.0.1.2", "end": "10.0.1.9"}], errors.BadRequest),
    ([{"start": "10.0.0.9", "end": "10.0.0.2"}], errors.BadRequest),
    ([{"start": "10.0.0.2", "end": "10.0.0.9"}, {"start": "10.0.0.8", "end": "10.0.0.20"}],
     errors.BadRequest),
    ([{"start": "nonsense", "end": "10.0.0.9"}], errors.InvalidInput),
])
def test_bad_pools_are_refused(pools, error):
    with pytest.raises(error):
        ipam.validate_pools("10.0.0.0/24", "10.0.0.1", pools)


def test_eui64_is_the_slaac_address_of_the_mac():
    assert ipam.eui64("2001:db8::/64", "fa:16:3e:12:34:56") == "2001:db8::f816:3eff:fe12:3456"


@pytest.mark.parametrize(("pools", "version"), [
    ([("10.0.0.250", "10.0.2.3")], 4),  # across /24s, a block's tail and head
    ([("10.0.0.2", "10.0.0.2"), ("192.168.7.0", "192.168.7.255")], 4),
    ([("fd00::2", "fd00::1:3")], 6),
])
def test_the_pools_addresses_are_each_in_order_as_stored(pools, version):
    subnet = SimpleNamespace(ip_version=version,
                             allocation_pools=[{"start": a, "end": b} for a, b in pools])
    expected = [str(ipaddress.ip_address(n)) for a, b in pools
                for n in range(int(ipaddress.ip_address(a)), int(ipaddress.ip_address(b)) + 1)]
    assert list(ipam._in_pools(subnet, ipam._pools(subnet))) == expected
