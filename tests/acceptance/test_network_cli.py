"""The networking issue's six steps with the unmodified `openstack` CLI and openstacksdk:
devstack's layout, servers on `private` with addresses and bound ports, floating IPs,
security groups, interfaces, and the admin's provider networks and subnets."""

from __future__ import annotations

import time

from openstack import connection
from openstack.config import OpenStackConfig

from tests.acceptance.cli import Cli


def _addresses(cli: Cli, server: str) -> dict:
    return cli.json("server", "show", server)["addresses"]


def _wait(predicate, what: str, timeout: float = 20):
    deadline = time.monotonic() + timeout
    while not (value := predicate()):
        assert time.monotonic() < deadline, what
        time.sleep(0.3)
    return value


def test_layout_servers_ports_and_interfaces_with_the_cli(cloud):
    demo = Cli(cloud.clouds_yaml, "novalite")
    admin = Cli(cloud.clouds_yaml, "novalite-admin")

    # 1. devstack's layout, and the extensions served
    networks = {n["Name"]: n for n in demo.json("network", "list")}
    assert {"public", "private"} <= set(networks)
    public = admin.json("network", "show", "public")
    assert public["router:external"] is True and public["provider:network_type"] == "flat"
    private_subnet = demo.json("subnet", "show", "private-subnet")
    assert (private_subnet["cidr"], private_subnet["enable_dhcp"]) == ("10.0.0.0/26", True)
    router = demo.json("router", "show", "router1")
    assert router["external_gateway_info"]["network_id"] == public["id"]
    aliases = {e["Alias"] for e in demo.json("extension", "list", "--network")}
    assert {"router", "external-net", "security-group", "binding", "quotas"} <= aliases

    # 2. a server on private, with its bound port
    vm = demo.boot("--image", "novalite-tiny", "--flavor", "m1.tiny", "--network", "private",
                   "net-vm1")
    (fixed,) = vm["addresses"]["private"]
    assert fixed.startswith("10.0.0.")
    (port,) = demo.json("port", "list", "--server", "net-vm1")
    bound = admin.json("port", "show", port["ID"])
    assert bound["binding_host_id"] and bound["device_owner"] == "compute:nova"
    assert bound["status"] == "ACTIVE"
    v4_port = demo.json("port", "create", "--network", "private", "--fixed-ip",
                        "subnet=private-subnet,ip-address=10.0.0.50", "net-user-port")
    by_port = demo.boot("--image", "novalite-tiny", "--flavor", "m1.tiny", "--nic",
                        f"port-id={v4_port['id']}", "net-vm2")
    assert by_port["addresses"]["private"] == ["10.0.0.50"]
    taken = demo.run("server", "create", "--image", "novalite-tiny", "--flavor", "m1.tiny",
                     "--nic", f"net-id={networks['private']['ID']},v4-fixed-ip=10.0.0.50",
                     "net-vm3")
    assert taken.returncode == 1 and "already in use" in taken.stderr

    # 5. interfaces, and deletes that leave no port behind
    extra = demo.json("port", "create", "--network", "private", "net-extra")
    (extra_ip,) = [ip["ip_address"] for ip in extra["fixed_ips"]]
    demo.ok("server", "add", "port", "net-vm1", extra["id"])
    assert extra_ip in _addresses(demo, "net-vm1")["private"]  # the compute plugged it
    demo.ok("server", "add", "network", "net-vm1", "private")
    assert len(demo.json("port", "list", "--server", "net-vm1")) == 3
    assert len(_addresses(demo, "net-vm1")["private"]) == 3
    demo.ok("server", "remove", "port", "net-vm1", extra["id"])  # a cast, as Nova's
    _wait(lambda: extra_ip not in _addresses(demo, "net-vm1")["private"],
          "the removed port out of the server's addresses")  # the compute's last step
    assert demo.json("port", "show", extra["id"])["device_id"] == ""
    demo.delete("net-vm1", "net-vm2")
    assert demo.json("port", "list", "--device-owner", "compute:nova") == []
    assert demo.json("port", "show", v4_port["id"])["device_id"] == ""  # the user's, kept
    demo.ok("port", "delete", extra["id"], v4_port["id"])


def test_floating_ips_and_security_groups_with_the_cli(cloud):
    demo = Cli(cloud.clouds_yaml, "novalite")
    demo.boot("--image", "novalite-tiny", "--flavor", "m1.tiny", "--network", "private",
              "net-vm4")
    try:
        _floating_ips_and_security_groups(demo)
    finally:  # the package's other tests share this cloud: leave no server behind
        demo.run("server", "delete", "net-vm4", "net-vm5")
        demo.wait_gone("net-vm4", "net-vm5")


def _floating_ips_and_security_groups(demo: Cli) -> None:

    # 3. a floating IP on and off
    fip = demo.json("floating", "ip", "create", "public")["floating_ip_address"]
    demo.ok("server", "add", "floating", "ip", "net-vm4", fip)
    _wait(lambda: fip in _addresses(demo, "net-vm4").get("private", []), "floating IP shown")
    demo.ok("server", "remove", "floating", "ip", "net-vm4", fip)
    _wait(lambda: fip not in _addresses(demo, "net-vm4").get("private", []),
          "floating IP gone")
    demo.ok("floating", "ip", "delete", fip)

    # 4. security groups
    demo.json("security", "group", "create", "net-web")
    rule = demo.json("security", "group", "rule", "create", "--protocol", "tcp",
                     "--dst-port", "22", "net-web")
    assert (rule["port_range_min"], rule["port_range_max"]) == (22, 22)
    demo.ok("server", "add", "security", "group", "net-vm4", "net-web")
    groups = {g["name"] for g in demo.json("server", "show", "net-vm4")["security_groups"]}
    assert groups == {"default", "net-web"}
    with_group = demo.boot("--image", "novalite-tiny", "--flavor", "m1.tiny", "--network",
                           "private", "--security-group", "net-web", "net-vm5")
    assert with_group["security_groups"] == [{"name": "net-web"}]
    default_rules = demo.json("security", "group", "rule", "list", "default")
    assert len(default_rules) == 4


def test_admin_provider_networks_and_subnets_with_the_cli(cloud):
    admin = Cli(cloud.clouds_yaml, "novalite-admin")
    # 6. an admin's provider network, IPv6 subnets, pools, routes, DNS
    vlan = admin.json("network", "create", "--provider-network-type", "vlan",
                      "--provider-physical-network", "physnet1", "--provider-segment",
                      "120", "--share", "net-vlan")
    assert (vlan["provider:segmentation_id"], vlan["shared"]) == (120, True)
    subnet = admin.json("subnet", "create", "--network", "net-vlan", "--subnet-range",
                        "192.168.40.0/24", "--allocation-pool",
                        "start=192.168.40.10,end=192.168.40.20", "--dns-nameserver",
                        "192.168.40.1", "--host-route",
                        "destination=10.10.0.0/16,gateway=192.168.40.1", "net-vlan-v4")
    assert subnet["allocation_pools"] == [{"start": "192.168.40.10", "end": "192.168.40.20"}]
    for mode in ("slaac", "dhcpv6-stateful"):
        v6 = admin.json("subnet", "create", "--network", "net-vlan", "--ip-version", "6",
                        "--subnet-range", f"fd00:{len(mode)}::/64", "--ipv6-ra-mode", mode,
                        "--ipv6-address-mode", mode, f"net-vlan-{mode}")
        assert v6["ipv6_address_mode"] == mode
    fips = admin.json("subnet", "create", "--network", "net-vlan", "--subnet-range",
                      "192.168.41.0/24", "--service-type", "network:floatingip",
                      "net-vlan-fips")
    assert fips["service_types"] == ["network:floatingip"]
    port = admin.json("port", "create", "--network", "net-vlan", "net-vlan-port")
    taken = {ip["subnet_id"] for ip in port["fixed_ips"]}
    assert subnet["id"] in taken and fips["id"] not in taken
    assert len(taken) == 3  # and an address on each IPv6 subnet, SLAAC's too
    admin.ok("port", "delete", port["id"])
    for args, words in ((("--mtu", "9000"), "Requested MTU is too big, maximum is 1450"),
                        (("--provider-network-type", "vlan", "--provider-physical-network",
                          "physnet9"), "physical_network 'physnet9' unknown"),
                        (("--availability-zone-hint", "az9"),
                         "AvailabilityZone az9 could not be found")):
        refused = admin.run("network", "create", *args, "net-refused")
        assert refused.returncode == 1 and words in refused.stderr, refused.stderr
    demo = Cli(cloud.clouds_yaml, "novalite")
    no_snat = demo.run("router", "set", "--external-gateway", "public", "--disable-snat",
                       "router1")
    assert no_snat.returncode == 1 and "disallowed by policy" in no_snat.stderr
    external = admin.json("network", "create", "--external", "net-ext")
    assert external["router:external"] is True
    refused = admin.run("network", "delete", "public")
    assert refused.returncode == 1
    # a second network every project sees would make the other files' servers (on the
    # same cloud) ask which network to take
    admin.ok("network", "delete", "net-vlan")


def test_networking_with_openstacksdk(cloud):
    config = OpenStackConfig(config_files=[str(cloud.clouds_yaml)], load_envvars=False)
    demo = connection.Connection(config=config.get_one(cloud="novalite"))
    private = demo.network.find_network("private", ignore_missing=False)
    image = demo.image.find_image("novalite-tiny", ignore_missing=False)
    flavor = demo.compute.find_flavor("m1.tiny", ignore_missing=False)
    server = demo.compute.create_server(name="sdk-net-vm", image_id=image.id,
                                        flavor_id=flavor.id,
                                        networks=[{"uuid": private.id}])
    server = demo.compute.wait_for_server(server, status="ACTIVE", interval=0.2, wait=60)
    (port,) = demo.network.ports(device_id=server.id)
    assert server.addresses["private"][0]["addr"] == port.fixed_ips[0]["ip_address"]
    assert server.addresses["private"][0]["OS-EXT-IPS-MAC:mac_addr"] == port.mac_address
    public = demo.network.find_network("public", ignore_missing=False)
    fip = demo.network.create_ip(floating_network_id=public.id, port_id=port.id)
    assert fip.fixed_ip_address == port.fixed_ips[0]["ip_address"]
    demo.network.delete_ip(fip)
    demo.compute.delete_server(server)
    demo.compute.wait_for_delete(server, interval=0.2, wait=60)
    assert list(demo.network.ports(device_id=server.id)) == []
