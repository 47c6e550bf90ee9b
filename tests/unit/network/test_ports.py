"""Ports on SQLite: addresses from the pools, fixed IPs checked, MACs from base_mac,
nothing half-made when a request fails."""

from __future__ import annotations

import pytest
from sqlalchemy import delete, func, select

from novalite.db.models import network as m
from novalite.network import errors, ipam, networks, ports, transaction
from tests.unit.network.conftest import PROJECT


def _port(network_id: str, **values):
    def work(s):
        return ports.create(s, PROJECT, networks.get(s, PROJECT, network_id), "p1", values)
    return transaction.write(work)


def _count(model) -> int:
    return transaction.read(lambda s: s.scalar(select(func.count()).select_from(model)))


def test_ports_get_distinct_addresses_in_the_pool_never_the_gateway(make_network):
    net, sub = make_network("10.0.0.0/29")  # .2-.6 free: .1 is the gateway
    made = [_port(net["id"]) for _ in range(5)]
    addresses = {p["fixed_ips"][0]["ip_address"] for p in made}
    assert addresses == {f"10.0.0.{i}" for i in range(2, 7)}
    assert all(p["fixed_ips"][0]["subnet_id"] == sub["id"] for p in made)
    with pytest.raises(errors.IpAddressGenerationFailure):
        _port(net["id"])
    assert _count(m.Port) == 5  # the failed one left nothing behind


def test_addresses_run_on_across_a_24_within_a_larger_subnet(make_network):
    net, _ = make_network("10.0.0.0/22", allocation_pools=[
        {"start": "10.0.0.252", "end": "10.0.1.3"}])
    addresses = {_port(net["id"])["fixed_ips"][0]["ip_address"] for _ in range(8)}
    assert addresses == {*(f"10.0.0.{i}" for i in range(252, 256)),
                         *(f"10.0.1.{i}" for i in range(4))}
    with pytest.raises(errors.IpAddressGenerationFailure):
        _port(net["id"])


def _address(port) -> str:
    return port["fixed_ips"][0]["ip_address"]


@pytest.fixture
def lowest_first(monkeypatch):
    """IPAM picks the first free address rather than one of the first few at random."""
    monkeypatch.setattr(ipam.random, "choice", lambda free: free[0])


def test_a_pick_reads_only_past_the_first_free_address_it_last_saw(make_network, monkeypatch):
    net, _ = make_network("10.0.0.0/22")
    first = {_address(_port(net["id"]))}

    def everything(*_):
        raise AssertionError("read every address taken")
    monkeypatch.setattr(ipam, "_taken", everything)
    later = {_address(_port(net["id"])) for _ in range(300)}
    assert len(first | later) == 301


def test_an_address_freed_below_where_picks_had_got_is_given_again(make_network, lowest_first):
    net, _ = make_network("10.0.0.0/24")
    made = [_port(net["id"]) for _ in range(20)]
    assert _address(made[-1]) == "10.0.0.21"
    transaction.write(lambda s: ports.delete(s, ports.get(s, PROJECT, made[3]["id"])))
    assert _address(_port(net["id"])) == "10.0.0.5"
    assert _address(_port(net["id"])) == "10.0.0.22"


def test_an_address_another_process_freed_is_given_once_the_pools_look_full(
        make_network, lowest_first):
    net, _ = make_network("10.0.0.0/29")  # .2-.6
    made = [_port(net["id"]) for _ in range(5)]
    transaction.write(lambda s: s.execute(  # no mapper event: this process does not know
        delete(m.IPAllocation).where(m.IPAllocation.port_id == made[1]["id"])))
    assert _address(_port(net["id"])) == "10.0.0.3"


def test_mac_keeps_base_mac_prefix_and_is_unique(make_network, conf):
    conf.set_override("base_mac", "fa:16:3e:00:00:00")
    net, _ = make_network()
    made = [_port(net["id"]) for _ in range(20)]
    assert all(p["mac_address"].startswith("fa:16:3e:") for p in made)
    assert len({p["mac_address"] for p in made}) == 20
    with pytest.raises(errors.MacAddressInUse):
        _port(net["id"], mac_address=made[0]["mac_address"])


def test_fixed_ip_outside_the_subnet_or_taken_is_refused(make_network):
    net, sub = make_network("10.0.0.0/24")
    got = _port(net["id"], fixed_ips=[{"ip_address": "10.0.0.50"}])
    assert got["fixed_ips"] == [{"subnet_id": sub["id"], "ip_address": "10.0.0.50"}]
    with pytest.raises(errors.IpAddressAlreadyAllocated):
        _port(net["id"], fixed_ips=[{"subnet_id": sub["id"], "ip_address": "10.0.0.50"}])
    with pytest.raises(errors.InvalidIpForSubnet):
        _port(net["id"], fixed_ips=[{"subnet_id": sub["id"], "ip_address": "10.0.1.5"}])
    with pytest.raises(errors.InvalidIpForNetwork):
        _port(net["id"], fixed_ips=[{"ip_address": "192.168.0.5"}])
    assert _count(m.Port) == 1 and _count(m.IPAllocation) == 1


def test_network_with_ports_in_use_cannot_be_deleted(make_network):
    net, _ = make_network()
    port = _port(net["id"])
    with pytest.raises(errors.NetworkInUse):
        transaction.write(lambda s: networks.delete(s, networks.get(s, PROJECT, net["id"])))
    transaction.write(lambda s: ports.delete(s, ports.get(s, PROJECT, port["id"])))
    transaction.write(lambda s: networks.delete(s, networks.get(s, PROJECT, net["id"])))
    assert _count(m.Network) == 0 and _count(m.Subnet) == 0
    assert _count(m.VxlanAllocation) == 0  # the VNI is free again


def test_update_fixed_ips_keeps_named_and_takes_new(make_network):
    net, sub = make_network("10.0.0.0/24")
    port = _port(net["id"], fixed_ips=[{"ip_address": "10.0.0.10"}])

    def update(s):
        return ports.update(s, PROJECT, ports.get(s, PROJECT, port["id"]), {"fixed_ips": [
            {"ip_address": "10.0.0.10"}, {"subnet_id": sub["id"], "ip_address": "10.0.0.11"}]})
    updated = transaction.write(update)
    assert [ip["ip_address"] for ip in updated["fixed_ips"]] == ["10.0.0.10", "10.0.0.11"]
    assert updated["revision_number"] > port["revision_number"]


def test_port_quota(make_network, conf):
    conf.set_override("quota_port", 2, group="QUOTAS")
    net, _ = make_network()
    _port(net["id"])
    _port(net["id"])
    with pytest.raises(errors.OverQuota):
        _port(net["id"])


def test_binding_makes_a_port_active(make_network):
    net, _ = make_network()
    port = _port(net["id"], **{"binding:host_id": "compute1", "device_owner": "compute:nova",
                               "device_id": "vm"})
    assert port["status"] == "ACTIVE" and port["binding:vif_type"] == "bridge"
    unbound = transaction.write(lambda s: ports.update(
        s, PROJECT, ports.get(s, PROJECT, port["id"]), {"binding:host_id": ""}))
    assert unbound["status"] == "DOWN" and unbound["binding:vif_type"] == "unbound"
