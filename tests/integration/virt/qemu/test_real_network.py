"""Real guests on real networks: two QEMU computes on this machine (two host namespaces on
one underlay), the guests' NICs on taps in their host's bridge for `private`, DHCP from
the network node's dnsmasq over VXLAN. Each guest's own DHCP client configures the
address its port says and prints it on the console; one guest reads its metadata from
169.254.169.254 (its router's proxy) and posts its password there, the other's user
data (from its config drive) pings the first (their default security group lets its
members in); the
DHCP server's namespace reaches them only once a rule lets ICMP in; deleting them takes
their taps, their bridges and the DHCP server away. A guest whose group lets in only TCP
22 answers a peer's nc there and not its ping, until an ICMP rule is added; the outside
is reached through the router and reaches a floating IP; live and cold migration keep a
guest's address; restarts keep it connected. On a dual-stack `private` (a SLAAC subnet
on router1 beside the DHCP one) a guest forms its port's IPv6 address from the router's
advertisements, and the router reaches it over IPv6; on a DHCPv6-stateful subnet the
guest's DHCPv6 client, started by the router's M flag, takes its port's address from the
network's dnsmasq."""

from __future__ import annotations

import base64
import subprocess
import time

import httpx

from novalite.all_in_one import driver_args
from novalite.conf import CONF
from novalite.datapath import linux, names
from novalite.image import db as images
from novalite.network import network_node
from novalite.service import assembly
from novalite.virt.qemu.guest_image import (
    META_MARKER,
    NET6_MARKER,
    NET_MARKER,
    USERDATA_MARKER,
)
from tests.integration.virt.qemu.test_real_guests import (
    NANO,
    console,
    wait_console,
    wait_settled,
)

ADMIN = {"X-OpenStack-Nova-API-Version": "2.74"}
MOVE = {"X-OpenStack-Nova-API-Version": "2.80"}


def _network(cloud, name: str) -> dict:
    with httpx.Client(base_url=f"{cloud.base_url}/networking/v2.0", timeout=30) as client:
        found, = client.get("/networks", params={"name": name}).json()["networks"]
    return found


def _boot_on(cloud, name: str, host: str, network_id: str, **server) -> str:
    response = cloud.api.post("/servers", headers=ADMIN, json={"server": {
        "name": name, "imageRef": images.DEFAULT_IMAGE_ID, "flavorRef": NANO, "host": host,
        "networks": [{"uuid": network_id}], **server}})
    assert response.status_code == 202, response.text
    return response.json()["server"]["id"]


def _address(cloud, server_id: str) -> str:
    address, = cloud.server(server_id)["addresses"]["private"]
    return address["addr"]


def _port(cloud, server_id: str) -> dict:
    with httpx.Client(base_url=f"{cloud.base_url}/networking/v2.0", timeout=30) as client:
        found, = client.get("/ports", params={"device_id": server_id}).json()["ports"]
    return found


def _let_in(cloud, group_id: str, **rule) -> None:
    with httpx.Client(base_url=f"{cloud.base_url}/networking/v2.0", timeout=30) as client:
        response = client.post("/security-group-rules", json={"security_group_rule": {
            "security_group_id": group_id, "direction": "ingress", "ethertype": "IPv4",
            **rule}})
        assert response.status_code == 201, response.text


def _allow_icmp(cloud, server_id: str) -> None:
    _let_in(cloud, _port(cloud, server_id)["security_groups"][0], protocol="icmp")


def _script(text: str) -> str:
    return base64.b64encode(f"#!/bin/sh\n{text}".encode()).decode()


def _reachable(namespace: str, address: str) -> bool:
    return subprocess.run(linux.in_namespace(namespace, [
        "busybox", "ping", "-c", "1", "-W", "2", address]), capture_output=True).returncode == 0


def _pings_until_reached(address: str, marker: str) -> str:
    """User data that pings until the address answers: under TCG the peer guest, or the
    rules that let this one in, may come up well after this guest's first ping."""
    return (f"#!/bin/sh\ni=0\nwhile [ $i -lt 30 ]; do\n"
            f"  ping -c 1 -W 2 {address} > /dev/null && echo {marker} && exit 0\n"
            f"  i=$((i + 1))\ndone\nexit 1\n")


def test_guests_on_two_hosts_get_their_ports_addresses_by_dhcp_and_talk(two_qemu_hosts):
    cloud = two_qemu_hosts
    private = _network(cloud, "private")
    hosts = [f"{CONF.host}-1", f"{CONF.host}-2"]
    # it also posts its (as if encrypted) password, as cloudbase-init does
    hello = base64.b64encode(
        b"#!/bin/sh\necho hello-from-the-metadata-service\n"
        b"wget -q -O /dev/null --post-data ZW5jcnlwdGVk "
        b"http://169.254.169.254/openstack/latest/password && echo PASSWORD-POSTED\n").decode()
    first = _boot_on(cloud, "vm0", hosts[0], private["id"], user_data=hello)
    peer = _address(cloud, first)  # the port's, known before the guest boots
    script = _pings_until_reached(peer, "PEER-REACHED")
    second = _boot_on(cloud, "vm1", hosts[1], private["id"], config_drive=True,
                      user_data=base64.b64encode(script.encode()).decode())
    servers = [first, second]
    for server_id in servers:
        wait_settled(cloud, server_id, "ACTIVE", 1)
        assert _port(cloud, server_id)["status"] == "ACTIVE"  # its host reported it wired
    addresses = [_address(cloud, server_id) for server_id in servers]

    for server_id, address in zip(servers, addresses, strict=True):
        out = wait_console(cloud, server_id, f"{NET_MARKER} eth0=")
        assert f"{NET_MARKER} eth0={address}/26" in out, out
    # the first guest has no config drive: 169.254.169.254, through its router's proxy
    out = wait_console(cloud, first, f"{USERDATA_MARKER} rc=")
    assert f"{META_MARKER} source=metadata-service" in out, out
    assert f"{META_MARKER} hostname=vm0" in out and "hello-from-the-metadata-service" in out
    assert "PASSWORD-POSTED" in out, out
    assert cloud.api.get(f"/servers/{first}/os-server-password").json() == {
        "password": "ZW5jcnlwdGVk"}
    # the second guest's user data, from its config drive, pings the first over VXLAN:
    # their default security group lets in its own members
    out = wait_console(cloud, second, f"{USERDATA_MARKER} rc=")
    assert f"{META_MARKER} source=config-drive" in out and "PEER-REACHED" in out, out
    # the DHCP server's namespace is no member: let ICMP in, and the running guests
    # take the rule within the agent's polling interval
    dhcp = names.dhcp_namespace(private["id"])
    assert not any(_reachable(dhcp, address) for address in addresses)
    _allow_icmp(cloud, first)
    started = time.monotonic()
    cloud.wait(lambda: all(_reachable(dhcp, address) for address in addresses), timeout=10)
    assert time.monotonic() - started < 2 * CONF.agent.polling_interval + 2

    for server_id in servers:
        cloud.api.delete(f"/servers/{server_id}")
        cloud.wait_gone(server_id)
    for host in hosts:
        assert linux.links(names.host_namespace(host)).keys() == {"lo", "ul0"}
    cloud.wait(lambda: dhcp not in linux.namespaces(), timeout=30)


def test_a_security_group_lets_in_what_its_rules_say_to_a_running_guest(two_qemu_hosts):
    """B's own group lets in TCP 22 only: A's nc reaches B's port 22 while A's ping is
    dropped; an ICMP rule added while both run lets the ping through within the agent's
    polling interval, B untouched."""
    cloud = two_qemu_hosts
    private = _network(cloud, "private")
    hosts = [f"{CONF.host}-1", f"{CONF.host}-2"]
    with httpx.Client(base_url=f"{cloud.base_url}/networking/v2.0", timeout=30) as client:
        group = client.post("/security-groups", json={"security_group": {
            "name": "ssh-only"}}).json()["security_group"]
    _let_in(cloud, group["id"], protocol="tcp", port_range_min=22, port_range_max=22)
    b = _boot_on(cloud, "b", hosts[1], private["id"], config_drive=True,
                 security_groups=[{"name": "ssh-only"}], user_data=_script(
                     "printf '#!/bin/sh\\necho B-ANSWERS\\n' > /tmp/answer\n"
                     "chmod +x /tmp/answer\nnc -ll -p 22 -e /tmp/answer &\n"))
    peer = _address(cloud, b)
    a = _boot_on(cloud, "a", hosts[0], private["id"], config_drive=True, user_data=_script(
        f"i=0\nuntil nc -w 2 {peer} 22 < /dev/null | grep -q B-ANSWERS; do\n"
        f"  i=$((i + 1)); [ $i -ge 60 ] && exit 1; sleep 1\ndone\necho SSH-REACHED\n"
        f"ping -c 2 -W 2 {peer} > /dev/null && echo PING-LET-IN || echo PING-DROPPED\n"
        f"until ping -c 1 -W 1 {peer} > /dev/null; do :; done\necho PING-ANSWERED\n"))
    for server_id in (a, b):
        wait_settled(cloud, server_id, "ACTIVE", 1)
    out = cloud.wait(lambda: "PING-" in (text := console(cloud, a)) and text, timeout=120)
    assert "SSH-REACHED" in out and "PING-DROPPED" in out, out

    _let_in(cloud, group["id"], protocol="icmp")
    started = time.monotonic()
    wait_console(cloud, a, "PING-ANSWERED")
    assert time.monotonic() - started < 2 * CONF.agent.polling_interval + 2
    assert "NOVALITE-USERDATA rc=0" in console(cloud, b)  # B ran on, not restarted


def test_a_cold_migrated_guest_keeps_its_address(two_qemu_hosts):
    cloud = two_qemu_hosts
    server_id, address, dhcp = _answering_guest(cloud, "mover", f"{CONF.host}-1")

    response = cloud.api.post(f"/servers/{server_id}/action", headers=MOVE,
                              json={"migrate": None})
    assert response.status_code == 202, response.text
    moved = wait_settled(cloud, server_id, "VERIFY_RESIZE", 1)
    assert moved["OS-EXT-SRV-ATTR:host"] == f"{CONF.host}-2"
    assert moved["addresses"]["private"][0]["addr"] == address
    wait_console(cloud, server_id, f"{NET_MARKER} eth0={address}/26")  # its DHCP lease
    cloud.wait(lambda: _reachable(dhcp, address), timeout=10)
    response = cloud.api.post(f"/servers/{server_id}/action", json={"confirmResize": None})
    assert response.status_code == 204, response.text
    wait_settled(cloud, server_id, "ACTIVE", 1)
    assert linux.links(names.host_namespace(f"{CONF.host}-1")).keys() == {"lo", "ul0"}
    assert _reachable(dhcp, address)


def test_a_guest_reaches_the_outside_and_is_reached_on_its_floating_ip(two_qemu_hosts):
    cloud = two_qemu_hosts
    private, public = _network(cloud, "private"), _network(cloud, "public")
    script = _pings_until_reached("172.24.4.1", "OUTSIDE-REACHED")
    server_id = _boot_on(cloud, "vm", f"{CONF.host}-1", private["id"], config_drive=True,
                         user_data=base64.b64encode(script.encode()).decode())
    wait_settled(cloud, server_id, "ACTIVE", 1)
    # SNAT: the outside has no route to the project network
    out = wait_console(cloud, server_id, f"{USERDATA_MARKER} rc=")
    assert "OUTSIDE-REACHED" in out, out

    with httpx.Client(base_url=f"{cloud.base_url}/networking/v2.0", timeout=30) as client:
        port, = client.get("/ports", params={"device_id": server_id}).json()["ports"]
        floating = client.post("/floatingips", json={"floatingip": {
            "floating_network_id": public["id"], "port_id": port["id"]}}).json()["floatingip"]
        address = floating["floating_ip_address"]
        outside = names.outside_namespace()
        router = names.router_namespace(floating["router_id"])
        cloud.wait(lambda: router in linux.namespaces()
                   and f"{address}/32" in linux.ip(router, "-br", "address"), timeout=10)
        assert not _reachable(outside, address)  # the default group lets no one in
        _allow_icmp(cloud, server_id)
        cloud.wait(lambda: _reachable(outside, address), timeout=10)

        client.put(f"/floatingips/{floating['id']}",
                   json={"floatingip": {"port_id": None}}).raise_for_status()
        cloud.wait(lambda: not _reachable(outside, address), timeout=10)


def _answering_guest(cloud, name: str, host: str) -> tuple[str, str, str]:
    """A guest on `private` on `host`, up with its address, answering pings from the
    DHCP namespace once ICMP is let in: its id, its address and that namespace."""
    private = _network(cloud, "private")
    server_id = _boot_on(cloud, name, host, private["id"])
    wait_settled(cloud, server_id, "ACTIVE", 1)
    address = _address(cloud, server_id)
    wait_console(cloud, server_id, f"{NET_MARKER} eth0={address}/26")
    dhcp = names.dhcp_namespace(private["id"])
    _allow_icmp(cloud, server_id)
    cloud.wait(lambda: _reachable(dhcp, address), timeout=10)
    return server_id, address, dhcp


def test_a_live_migrated_guest_keeps_its_address_and_its_filter(two_qemu_hosts):
    cloud = two_qemu_hosts
    server_id, address, dhcp = _answering_guest(cloud, "mover", f"{CONF.host}-1")

    response = cloud.api.post(f"/servers/{server_id}/action", headers=MOVE, json={
        "os-migrateLive": {"host": None, "block_migration": "auto"}})
    assert response.status_code == 202, response.text
    moved = cloud.wait(lambda: (s := cloud.server(server_id))["OS-EXT-SRV-ATTR:host"]
                       == f"{CONF.host}-2" and s["OS-EXT-STS:task_state"] is None and s,
                       timeout=120)
    assert moved["addresses"]["private"][0]["addr"] == address
    cloud.wait(lambda: _reachable(dhcp, address), timeout=10)
    source = names.host_namespace(f"{CONF.host}-1")
    assert linux.links(source).keys() == {"lo", "ul0"}  # its tap and bridge went
    # the port is bound to the destination, whose agent filters its tap and reports it
    tap = names.port_device(_port(cloud, server_id)["id"])
    destination = names.host_namespace(f"{CONF.host}-2")
    cloud.wait(lambda: (p := _port(cloud, server_id))["binding:host_id"] == f"{CONF.host}-2"
               and p["status"] == "ACTIVE"
               and tap in linux.run(linux.in_namespace(destination,
                                                       ["nft", "list", "ruleset"])),
               timeout=10)


def test_restarting_the_compute_and_the_network_node_keeps_the_guest_connected(
        two_qemu_hosts):
    cloud = two_qemu_hosts
    host = f"{CONF.host}-1"
    server_id, address, dhcp = _answering_guest(cloud, "steady", host)

    compute = next(s for s in cloud.aio.services
                   if s.host == host and s.binary == "novalite-compute")
    compute.stop()  # the guest, its tap and its rules stay
    assert _reachable(dhcp, address)
    successor = assembly.compute(host, driver_args(host))
    successor.start()  # adopts the guest; its agent finds the rules it would install
    cloud.aio.services[cloud.aio.services.index(compute)] = successor
    for agent in cloud.aio.network_node:
        agent.stop()  # dnsmasq, the router and its namespaces stay
    cloud.aio.network_node = network_node.start()  # and adopt them
    assert _reachable(dhcp, address)
    assert _port(cloud, server_id)["status"] == "ACTIVE"
    cloud.api.delete(f"/servers/{server_id}")
    cloud.wait_gone(server_id)  # the successor manages it
    assert linux.links(names.host_namespace(host)).keys() == {"lo", "ul0"}


def _guest_on_ipv6_subnet(cloud, cidr: str, mode: str, length: int
                          ) -> tuple[dict, str, str]:
    """A guest on `private` with an IPv6 subnet of `mode` (its RA and address mode) on
    router1 too, once its console showed both its port's addresses (the v6 one with
    `length`): its port, that address, and the router's namespace."""
    private = _network(cloud, "private")
    with httpx.Client(base_url=f"{cloud.base_url}/networking/v2.0", timeout=30) as client:
        response = client.post("/subnets", json={"subnet": {
            "network_id": private["id"], "ip_version": 6, "cidr": cidr,
            "ipv6_ra_mode": mode, "ipv6_address_mode": mode}})
        assert response.status_code == 201, response.text
        router, = client.get("/routers", params={"name": "router1"}).json()["routers"]
        client.put(f"/routers/{router['id']}/add_router_interface", json={
            "subnet_id": response.json()["subnet"]["id"]}).raise_for_status()
    server_id = _boot_on(cloud, mode, f"{CONF.host}-1", private["id"])
    wait_settled(cloud, server_id, "ACTIVE", 1)
    port = _port(cloud, server_id)
    v4, v6 = (next(ip["ip_address"] for ip in port["fixed_ips"]
                   if (":" in ip["ip_address"]) is six) for six in (False, True))
    out = wait_console(cloud, server_id, f"{NET6_MARKER} eth0=")
    assert f"{NET_MARKER} eth0={v4}/26\n" in out.replace("\r", ""), out
    assert f"{NET6_MARKER} eth0={v6}/{length}" in out, out
    return port, v6, names.router_namespace(router["id"])


def test_a_dual_stack_guest_forms_its_ports_ipv6_address_and_is_reached_over_ipv6(
        two_qemu_hosts):
    """A SLAAC subnet on `private`, on router1 too: the guest's DHCP lease is as
    before, its SLAAC client (dhcpcd) forms the address IPAM gave its port from the
    router's advertisements, and the router's namespace pings it there once its group lets
    ICMPv6 in from outside the group."""
    port, v6, namespace = _guest_on_ipv6_subnet(two_qemu_hosts, "fd00:10::/64", "slaac", 64)
    assert not _reachable(namespace, v6)  # the default group lets in its members only
    _let_in(two_qemu_hosts, port["security_groups"][0], ethertype="IPv6", protocol="ipv6-icmp")
    two_qemu_hosts.wait(lambda: _reachable(namespace, v6), timeout=10)


def test_a_guest_on_a_dhcpv6_stateful_subnet_takes_its_ports_address_by_dhcpv6(
        two_qemu_hosts):
    """A DHCPv6-stateful subnet on `private`, on router1: the router's advertisements
    carry the M flag and no prefix to form addresses from, so the guest has an IPv6
    address only if its own DHCPv6 client asks the network's dnsmasq, which hands out
    the one IPAM gave its port (a /128, as DHCPv6 clients add it); the router's namespace
    then reaches it there."""
    port, v6, namespace = _guest_on_ipv6_subnet(two_qemu_hosts, "fd00:20::/64",
                                                "dhcpv6-stateful", 128)
    _let_in(two_qemu_hosts, port["security_groups"][0], ethertype="IPv6", protocol="ipv6-icmp")
    two_qemu_hosts.wait(lambda: _reachable(namespace, v6), timeout=10)
