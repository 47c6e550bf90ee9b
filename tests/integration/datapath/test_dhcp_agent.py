"""The DHCP agent against a real database and a real datapath: a network is served once a
compute port on it is bound, through a DHCP port it makes; a port's address reaches a
guest; the last port's going takes the server, its namespace and its port away; a
restarted agent adopts what its predecessor left; a DHCPv6-stateful subnet added to a
served network gets the DHCP port an address on it and its ports their IPv6 addresses."""

from __future__ import annotations

from sqlalchemy import select

from novalite.datapath import bridges, linux, names
from novalite.db.models import network as m
from novalite.network import layout, networks, ports, subnets, transaction
from novalite.network.dhcp_agent import OWNER, DhcpAgent
from novalite.network.scope import ADMIN
from tests.integration.datapath import ipv6_clients
from tests.integration.datapath.conftest import dhcp_client, guest_namespace
from tests.waiting import wait_for


def _private() -> tuple[str, int]:
    """The devstack layout's `private` network: its id and VNI."""
    layout.ensure("admin-project", "demo-project")
    return tuple(transaction.read(lambda s: s.execute(
        select(m.Network.id, m.NetworkSegment.segmentation_id)
        .join(m.NetworkSegment, m.NetworkSegment.network_id == m.Network.id)
        .where(m.Network.name == "private")).one()))


def _bound_port(network_id: str, host: str = "compute1") -> dict:
    return transaction.write(lambda s: ports.create(
        s, ADMIN, networks.get(s, ADMIN, network_id), "demo-project",
        {"device_owner": "compute:nova", "device_id": "server-1",
         "binding:host_id": host}))


def _dhcp_ports(network_id: str) -> list[tuple[str, str]]:
    """(status, binding host) of the network's DHCP ports."""
    return transaction.read(lambda s: [tuple(row) for row in s.execute(
        select(m.Port.status, m.Port.binding_host_id).where(
            m.Port.network_id == network_id, m.Port.device_owner == OWNER))])


def test_a_bound_port_gets_its_address_from_the_agent(datapath, db, tmp_path):
    private, vni = _private()
    agent = DhcpAgent("network", str(tmp_path / "dhcp"))
    agent.sync()
    assert agent.server.served() == set()  # nothing bound yet: nothing served

    port = _bound_port(private)
    agent.sync()

    assert agent.server.served() == {private}
    assert _dhcp_ports(private) == [("ACTIVE", "network")]
    guest = guest_namespace("vm")
    segment = bridges.Segment(private, "vxlan", vni, None, 1450)
    device = bridges.plug_veth("compute1", segment, port["id"], guest, port["mac_address"])
    address = port["fixed_ips"][0]["ip_address"]
    assert dhcp_client(guest, device, tmp_path) == f"{address}/26 10.0.0.1 1450"


def test_the_last_port_going_stops_the_server_and_removes_its_port(datapath, db, tmp_path):
    private, _ = _private()
    port = _bound_port(private)
    agent = DhcpAgent("network", str(tmp_path / "dhcp"))
    agent.sync()
    assert agent.server.served() == {private}

    transaction.write(lambda s: ports.delete(s, s.get(m.Port, port["id"])))
    agent.sync()

    assert agent.server.served() == set()
    assert _dhcp_ports(private) == []
    assert names.dhcp_namespace(private) not in linux.namespaces()
    assert not (tmp_path / "dhcp" / private).exists()


def test_a_running_agent_serves_a_port_bound_in_its_process_at_once(datapath, db, tmp_path,
                                                                    conf):
    conf.set_override("polling_interval", 600, group="agent")  # only the commit wakes it
    private, _ = _private()
    agent = DhcpAgent("network", str(tmp_path / "dhcp"))
    agent.start()
    try:
        port = _bound_port(private)
        hosts = tmp_path / "dhcp" / private / "host"
        wait_for(lambda: hosts.exists() and port["mac_address"] in hosts.read_text(),
                 timeout=10, what="the port in dnsmasq's hosts file")
    finally:
        agent.stop()


def test_a_restarted_agent_adopts_the_running_server(datapath, db, tmp_path):
    private, _ = _private()
    _bound_port(private)
    DhcpAgent("network", str(tmp_path / "dhcp")).sync()
    pid = (tmp_path / "dhcp" / private / "pid").read_text()

    successor = DhcpAgent("network", str(tmp_path / "dhcp"))
    successor.sync()

    assert (tmp_path / "dhcp" / private / "pid").read_text() == pid
    assert len(_dhcp_ports(private)) == 1


def test_a_stateful_ipv6_subnet_added_later_is_served_by_dhcpv6(datapath, db, tmp_path):
    private, vni = _private()
    _bound_port(private)
    agent = DhcpAgent("network", str(tmp_path / "dhcp"))
    agent.sync()
    transaction.write(lambda s: subnets.create(s, networks.get(s, ADMIN, private),
                                               "demo-project", {
        "cidr": "fd00:20::/64", "ip_version": 6, "dns_nameservers": ["fd00:20::53"],
        "ipv6_address_mode": "dhcpv6-stateful", "ipv6_ra_mode": "dhcpv6-stateful"}))
    port = _bound_port(private, "compute2")  # an address of each version
    agent.sync()

    v6 = next(ip["ip_address"] for ip in port["fixed_ips"] if ":" in ip["ip_address"])
    hosts = (tmp_path / "dhcp" / private / "host").read_text()
    assert f"{port['mac_address']},host-{v6.replace(':', '-')},[{v6}]" in hosts
    shown = linux.ip(names.dhcp_namespace(private), "-6", "-br", "address")
    assert "fd00:20::" in shown  # the DHCP port took an address on the new subnet
    guest = guest_namespace("vm")
    segment = bridges.Segment(private, "vxlan", vni, None, 1450)
    device = bridges.plug_veth("compute2", segment, port["id"], guest, port["mac_address"])
    reply, = ipv6_clients.dhcpv6(guest, device, port["mac_address"])
    assert (reply.addresses, reply.dns) == ([v6], ["fd00:20::53"])
