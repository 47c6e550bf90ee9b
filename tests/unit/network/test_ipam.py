"""Allocation pools, address checks and SLAAC addresses (no database)."""

from __future__ import annotations

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
