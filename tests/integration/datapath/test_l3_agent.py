"""The L3 agent against a real database and datapath: devstack's router1 runs once a guest
port on `private` is bound, with its gateway on `public`, the outside's gateway address
and the floating IPs associated; it goes with the last bound port."""

from __future__ import annotations

from sqlalchemy import select

from novalite.datapath import linux, names
from novalite.db.models import network as m
from novalite.network import floating_ips, layout, networks, ports, transaction
from novalite.network.l3_agent import L3Agent
from novalite.network.scope import ADMIN


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
