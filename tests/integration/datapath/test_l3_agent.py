"""The L3 agent against a real database and datapath: devstack's router1 runs once a guest
port on `private` is bound, with its gateway on `public`, the outside's gateway address
and the floating IPs associated; it goes with the last bound port. A SLAAC subnet on
router1 gets its gateway address there and is advertised."""

from __future__ import annotations

from sqlalchemy import select

from novalite.datapath import bridges, linux, names
from novalite.db.models import network as m
from novalite.network import (
    floating_ips,
    layout,
    networks,
    ports,
    routers,
    subnets,
    transaction,
    wiring,
)
from novalite.network.l3_agent import L3Agent
from novalite.network.scope import ADMIN
from tests.integration.datapath import ipv6_clients
from tests.integration.datapath.conftest import guest_namespace


def _network_id(name: str) -> str:
    return transaction.read(lambda s: s.scalar(select(m.Network.id).where(
        m.Network.name == name)))


def test_router1_runs_with_a_bound_port_and_carries_its_floating_ip(datapath, db, tmp_path):
    layout.ensure("admin-project", "demo-project")
    agent = L3Agent("network", str(tmp_path))
    agent.sync()
    assert agent.routers.served() == set()

    private, public = _network_id("private"), _network_id("public")
    port = transaction.write(lambda s: ports.create(
        s, ADMIN, networks.get(s, ADMIN, private), "demo-project",
        {"device_owner": "compute:nova", "device_id": "server-1",
         "binding:host_id": "compute1"}))
    floating = transaction.write(lambda s: floating_ips.create(s, ADMIN, "demo-project", {
        "floating_network_id": public, "port_id": port["id"]}))
    agent.sync()

    router_id, = agent.routers.served()
    namespace = names.router_namespace(router_id)
    shown = linux.ip(namespace, "-br", "address")
    assert "10.0.0.1/26" in shown and f"{floating['floating_ip_address']}/32" in shown
    assert "172.24.4.1/24" in linux.ip(names.outside_namespace(), "-br", "address")
    nat = linux.run(linux.in_namespace(namespace, ["nft", "list", "ruleset"]))
    assert f"dnat to {port['fixed_ips'][0]['ip_address']}" in nat

    transaction.write(lambda s: ports.delete(s, s.get(m.Port, port["id"])))
    agent.sync()
    assert agent.routers.served() == set()
    assert namespace not in linux.namespaces()


def test_a_slaac_subnet_on_router1_is_advertised_from_its_gateway_address(datapath, db,
                                                                           tmp_path):
    layout.ensure("admin-project", "demo-project")
    private = _network_id("private")

    def add_subnet(s):
        subnet = subnets.create(s, networks.get(s, ADMIN, private), "demo-project", {
            "cidr": "fd00:30::/64", "ip_version": 6, "ipv6_ra_mode": "slaac",
            "ipv6_address_mode": "slaac"})
        router = s.scalar(select(m.Router).where(m.Router.name == "router1"))
        routers.add_interface(s, ADMIN, router, {"subnet_id": subnet["id"]})
        return ports.create(s, ADMIN, networks.get(s, ADMIN, private), "demo-project",
                            {"device_owner": "compute:nova", "device_id": "server-1",
                             "binding:host_id": "compute1"})

    port = transaction.write(add_subnet)
    agent = L3Agent("network", str(tmp_path))
    agent.sync()

    router_id, = agent.routers.served()
    namespace = names.router_namespace(router_id)
    assert "fd00:30::1/64" in linux.ip(namespace, "-br", "address")
    guest = guest_namespace("vm")
    listener = ipv6_clients.listen(guest)
    segment = transaction.read(lambda s: wiring.segments(s, [private])[private])
    bridges.plug_veth("compute1", segment, port["id"], guest, port["mac_address"])
    advert = ipv6_clients.advertisement(listener)
    assert advert.prefixes == {"fd00:30::/64": "LA"}
