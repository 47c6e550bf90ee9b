"""Servers on networks, through the compute API of the all-in-one: ports made at the
API, bound by the compute, shown in `addresses`, cleaned up on delete; refusals leave
nothing behind."""

from __future__ import annotations

import httpx
import pytest

from novalite.identity import bootstrap
from novalite.image import db as images
from tests.functional import tempest_schemas


@pytest.fixture
def demo(cloud):
    """The demo project's compute and network clients (it owns `private`)."""
    project = bootstrap.project_ids("demo")[0]
    headers = {"X-Auth-Token": f"demo:{project}", "X-OpenStack-Nova-API-Version": "2.37"}
    compute = httpx.Client(base_url=f"{cloud.base_url}/compute/v2.1", timeout=30,
                           headers=headers)
    network = httpx.Client(base_url=f"{cloud.base_url}/networking/v2.0", timeout=30,
                           headers=headers)
    private = network.get("/networks", params={"name": "private"}).json()["networks"][0]
    return compute, network, private


def _boot(compute: httpx.Client, networks, **server) -> httpx.Response:
    return compute.post("/servers", json={"server": {
        "name": "vm", "flavorRef": "1", "imageRef": images.DEFAULT_IMAGE_ID,
        "networks": networks, **server}})


def _active(cloud, compute: httpx.Client, server_id: str) -> dict:
    return cloud.wait(lambda: (s := compute.get(f"/servers/{server_id}").json()["server"])[
        "status"] == "ACTIVE" and s)


def test_boot_on_private_gets_a_bound_port_and_an_address(cloud, demo):
    compute, network, private = demo
    made = _boot(compute, [{"uuid": private["id"]}])
    assert made.status_code == 202, made.text
    server = _active(cloud, compute, made.json()["server"]["id"])
    (address,) = server["addresses"]["private"]
    assert address["addr"].startswith("10.0.0.") and address["OS-EXT-IPS:type"] == "fixed"
    ports = network.get("/ports", params={"device_id": server["id"]}).json()["ports"]
    assert len(ports) == 1 and ports[0]["mac_address"] == address["OS-EXT-IPS-MAC:mac_addr"]
    admin_view = httpx.get(f"{cloud.base_url}/networking/v2.0/ports/{ports[0]['id']}").json()
    assert admin_view["port"]["binding:host_id"] in ("compute1", "compute2")
    assert admin_view["port"]["status"] == "ACTIVE"
    assert admin_view["port"]["device_owner"] == "compute:nova"
    assert compute.delete(f"/servers/{server['id']}").status_code == 204
    cloud.wait(lambda: compute.get(f"/servers/{server['id']}").status_code == 404)
    assert network.get("/ports", params={"device_id": server["id"]}).json()["ports"] == []


def test_auto_picks_the_only_network_and_none_gives_none(cloud, demo):
    compute, _, _ = demo
    auto = _active(cloud, compute, _boot(compute, "auto").json()["server"]["id"])
    assert list(auto["addresses"]) == ["private"]
    none = _active(cloud, compute, _boot(compute, "none").json()["server"]["id"])
    assert none["addresses"] == {}


def test_user_port_is_kept_and_unbound_on_delete(cloud, demo):
    compute, network, private = demo
    port = network.post("/ports", json={"port": {"network_id": private["id"]}}).json()["port"]
    server = _active(cloud, compute, _boot(compute, [{"port": port["id"]}]).json()[
        "server"]["id"])
    assert server["addresses"]["private"][0]["addr"] == port["fixed_ips"][0]["ip_address"]
    in_use = _boot(compute, [{"port": port["id"]}])
    assert in_use.status_code == 409 and "still in use" in in_use.text
    compute.delete(f"/servers/{server['id']}")
    cloud.wait(lambda: compute.get(f"/servers/{server['id']}").status_code == 404)
    kept = network.get(f"/ports/{port['id']}").json()["port"]
    assert kept["device_id"] == "" and kept["device_owner"] == ""


def test_refused_creates_leave_no_port(cloud, demo):
    compute, network, private = demo
    before = len(network.get("/ports").json()["ports"])
    taken = network.get("/ports", params={"network_id": private["id"]}).json()["ports"][0]
    refused = _boot(compute, [{"uuid": private["id"]},
                              {"uuid": private["id"],
                               "fixed_ip": taken["fixed_ips"][0]["ip_address"]}])
    assert refused.status_code == 400, refused.text
    assert refused.json()["badRequest"]["message"] == (  # Nova's words, its network id too
        f"Fixed IP address {taken['fixed_ips'][0]['ip_address']} is already in use on "
        f"instance {private['id']}.")
    outside = _boot(compute, [{"uuid": private["id"], "fixed_ip": "192.168.99.9"}])
    assert outside.status_code == 400, outside.text
    missing = _boot(compute, [{"uuid": "5ad1c7e4-7a47-4e42-9cc4-1bd3f8dbd0a7"}])
    assert missing.status_code == 400 and "could not be found" in missing.text
    assert len(network.get("/ports").json()["ports"]) == before
    servers = compute.get("/servers").json()["servers"]
    assert servers == []


def _admin_network(cloud, name: str, cidr: str, **attrs) -> str:
    """A network of the admin's (noauth2 without a token is the admin), with a subnet."""
    base = f"{cloud.base_url}/networking/v2.0"
    made = httpx.post(f"{base}/networks", json={"network": {"name": name, **attrs}})
    assert made.status_code == 201, made.text
    net_id = made.json()["network"]["id"]
    httpx.post(f"{base}/subnets", json={"subnet": {
        "network_id": net_id, "cidr": cidr, "ip_version": 4}}).raise_for_status()
    return net_id


def test_shared_and_external_networks_and_their_subnets_are_everyones_to_read(cloud, demo):
    _, network, _ = demo
    public = network.get("/networks", params={"name": "public"}).json()["networks"][0]
    shared = _admin_network(cloud, "everyones", "10.9.0.0/24", shared=True)
    own = _admin_network(cloud, "admins", "10.8.0.0/24")
    for net_id in (public["id"], shared):
        shown = network.get(f"/networks/{net_id}")
        assert shown.status_code == 200, shown.text
        subnet = shown.json()["network"]["subnets"][0]
        assert network.get(f"/subnets/{subnet}").status_code == 200
    assert network.get(f"/networks/{own}").status_code == 404
    listed = {n["id"] for n in network.get("/networks").json()["networks"]}
    assert {public["id"], shared} <= listed and own not in listed
    refused = network.put(f"/networks/{shared}", json={"network": {"name": "mine"}})
    assert refused.status_code in (403, 404), refused.text


def test_a_users_server_goes_on_a_shared_network_never_on_an_external_one(cloud, demo):
    compute, network, _ = demo
    public = network.get("/networks", params={"name": "public"}).json()["networks"][0]
    refused = _boot(compute, [{"uuid": public["id"]}])
    assert refused.status_code == 403, refused.text
    assert refused.json()["forbidden"]["message"] == (
        f"It is not allowed to create an interface on external network {public['id']}")
    shared = _admin_network(cloud, "everyones", "10.9.0.0/24", shared=True)
    made = _boot(compute, [{"uuid": shared}])
    assert made.status_code == 202, made.text
    assert list(_active(cloud, compute, made.json()["server"]["id"])["addresses"]) == [
        "everyones"]
    # Nova's available networks: the project's own and the shared ones (not "own, else
    # shared"), so with `private` there too, "auto" cannot choose
    ambiguous = _boot(compute, "auto")
    assert ambiguous.status_code == 409, ambiguous.text
    assert "More than one possible network found" in ambiguous.text


def test_ips_lists_the_addresses_as_nova_and_tempest_have_them(cloud, demo):
    compute, network, private = demo
    server = _active(cloud, compute, _boot(compute, [{"uuid": private["id"]}]).json()[
        "server"]["id"])
    listed = tempest_schemas.check(compute.get(f"/servers/{server['id']}/ips"), "v2_1",
                                   "servers", "list_addresses")
    (address,) = listed["addresses"]["private"]
    assert address == {"version": 4, "addr": server["addresses"]["private"][0]["addr"]}
    shown = tempest_schemas.check(compute.get(f"/servers/{server['id']}/ips/private"),
                                  "v2_1", "servers", "list_addresses_by_network")
    assert shown == {"private": [address]}
    missing = compute.get(f"/servers/{server['id']}/ips/public")
    assert missing.status_code == 404
    assert missing.json()["itemNotFound"]["message"] == (
        "Instance is not a member of specified network")


def test_a_build_with_no_host_keeps_no_address(cloud, demo):
    compute, network, private = demo
    huge = httpx.post(f"{cloud.base_url}/compute/v2.1/flavors", json={"flavor": {
        "name": "huge", "ram": 10**7, "vcpus": 1, "disk": 1}})
    assert huge.status_code == 200, huge.text
    own = network.post("/ports", json={"port": {"network_id": private["id"]}}).json()["port"]
    made = _boot(compute, [{"uuid": private["id"]}, {"port": own["id"]}],
                 flavorRef=huge.json()["flavor"]["id"])
    assert made.status_code == 202, made.text
    server = cloud.wait(lambda: (s := compute.get(f"/servers/{made.json()['server']['id']}")
                                 .json()["server"])["status"] == "ERROR" and s)
    assert "No valid host" in server["fault"]["message"]
    cloud.settle()
    assert network.get("/ports", params={"device_id": server["id"]}).json()["ports"] == []
    assert network.get(f"/ports/{own['id']}").json()["port"]["device_id"] == ""
    assert compute.get(f"/servers/{server['id']}").json()["server"]["addresses"] == {}


def test_a_fixed_ip_added_and_removed_before_2_44(cloud, demo):
    compute, _, private = demo
    server = _active(cloud, compute, _boot(compute, [{"uuid": private["id"]}]).json()[
        "server"]["id"])
    action = f"/servers/{server['id']}/action"
    added = compute.post(action, json={"addFixedIp": {"networkId": private["id"]}})
    assert added.status_code == 202, added.text
    addresses = [a["addr"] for a in compute.get(f"/servers/{server['id']}").json()[
        "server"]["addresses"]["private"]]
    assert len(addresses) == 2
    removed = compute.post(action, json={"removeFixedIp": {"address": addresses[1]}})
    assert removed.status_code == 202, removed.text
    assert [a["addr"] for a in compute.get(f"/servers/{server['id']}").json()["server"][
        "addresses"]["private"]] == addresses[:1]
    unknown = compute.post(action, json={"removeFixedIp": {"address": "10.0.0.61"}})
    assert unknown.status_code == 400
    assert unknown.json()["badRequest"]["message"] == (
        f"Instance {server['id']} doesn't have fixed IP '10.0.0.61'.")
    gone = compute.post(action, json={"addFixedIp": {"networkId": private["id"]}},
                        headers={"X-OpenStack-Nova-API-Version": "2.44"})
    assert gone.status_code == 404


def test_a_server_without_ports_takes_no_security_group(cloud, demo):
    compute, _, _ = demo
    server = _active(cloud, compute, _boot(compute, "none").json()["server"]["id"])
    refused = compute.post(f"/servers/{server['id']}/action",
                           json={"addSecurityGroup": {"name": "default"}})
    assert refused.status_code == 404, refused.text
    assert refused.json()["itemNotFound"]["message"] == (
        f"instance_id {server['id']} could not be found as device id on any ports")


def test_a_network_without_a_subnet_or_a_port_without_an_address_is_refused(cloud, demo):
    """Nova's validate_networks: a requested network needs a subnet, a requested port an
    address; nothing is made or claimed."""
    compute, network, private = demo
    nosub = network.post("/networks", json={"network": {"name": "nosub"}}).json()["network"]
    refused = _boot(compute, [{"uuid": nosub["id"]}])
    assert refused.status_code == 400, refused.text
    assert refused.json()["badRequest"]["message"] == (
        f"Network {nosub['id']} requires a subnet in order to boot instances on.")
    bare = network.post("/ports", json={"port": {"network_id": private["id"],
                                                 "fixed_ips": []}}).json()["port"]
    assert bare["fixed_ips"] == []
    refused = _boot(compute, [{"uuid": private["id"]}, {"port": bare["id"]}])
    assert refused.status_code == 400, refused.text
    assert refused.json()["badRequest"]["message"] == (
        f"Port {bare['id']} requires a FixedIP in order to be used.")
    assert network.get(f"/ports/{bare['id']}").json()["port"]["device_id"] == ""
    assert network.get("/ports", params={"network_id": private["id"],
                                         "device_owner": ""}).json()["ports"] == [bare]
    assert compute.get("/servers").json()["servers"] == []


def _group(network: httpx.Client, name: str) -> str:
    made = network.post("/security-groups", json={"security_group": {"name": name}})
    assert made.status_code == 201, made.text
    return str(made.json()["security_group"]["id"])


def _port_groups(network: httpx.Client, server_id: str) -> list[str]:
    (port,) = network.get("/ports", params={"device_id": server_id}).json()["ports"]
    return list(port["security_groups"])


def test_security_groups_of_a_create_are_the_projects_own(cloud, demo):
    """Nova's _process_security_groups: names are looked up in the new server's project
    (the request's), a name another project uses is not found (400), one the project
    uses twice is ambiguous (409); the project's own is used."""
    compute, network, private = demo
    web = _group(network, "web")
    admin = httpx.Client(base_url=f"{cloud.base_url}/compute/v2.1", timeout=30,
                         headers={"X-OpenStack-Nova-API-Version": "2.37"})
    foreign = _boot(admin, [{"uuid": private["id"]}], security_groups=[{"name": "web"}])
    assert foreign.status_code == 400, foreign.text
    assert foreign.json()["badRequest"]["message"] == "Security group web not found."
    dup = [_group(network, "dup"), _group(network, "dup")]
    ambiguous = _boot(compute, [{"uuid": private["id"]}], security_groups=[{"name": "dup"}])
    assert ambiguous.status_code == 409, ambiguous.text
    assert ambiguous.json()["conflictingRequest"]["message"] == (
        "Multiple security groups found matching 'dup'. Use an ID to be more specific.")
    assert compute.get("/servers").json()["servers"] == []
    made = _boot(compute, [{"uuid": private["id"]}],
                 security_groups=[{"name": "web"}, {"name": dup[1]}])
    assert made.status_code == 202, made.text
    assert _port_groups(network, made.json()["server"]["id"]) == [web, dup[1]]


def test_add_security_group_looks_in_the_callers_project(cloud, demo):
    """Nova's add_to_instance and remove_from_instance: a name is looked up in the
    caller's project (404 when not there, 409 when twice), an id wherever the caller
    sees it."""
    compute, network, private = demo
    server = _active(cloud, compute, _boot(compute, [{"uuid": private["id"]}]).json()[
        "server"]["id"])
    action = f"/servers/{server['id']}/action"
    alice = httpx.Client(base_url=f"{cloud.base_url}/networking/v2.0", timeout=30,
                         headers={"X-Auth-Token": "alice:proj1"})
    _group(alice, "elsewhere")
    admin = httpx.Client(base_url=f"{cloud.base_url}/compute/v2.1", timeout=30)
    foreign = admin.post(action, json={"addSecurityGroup": {"name": "elsewhere"}})
    assert foreign.status_code == 404, foreign.text
    assert foreign.json()["itemNotFound"]["message"] == (
        "Security group elsewhere is not found for project admin")
    dup = [_group(network, "dup"), _group(network, "dup")]
    for name in ("addSecurityGroup", "removeSecurityGroup"):
        ambiguous = compute.post(action, json={name: {"name": "dup"}})
        assert ambiguous.status_code == 409, ambiguous.text
        assert ambiguous.json()["conflictingRequest"]["message"] == (
            "Multiple security_group matches found for name 'dup', use an ID to be more "
            "specific.")
    before = _port_groups(network, server["id"])
    assert compute.post(action, json={"addSecurityGroup": {"name": dup[0]}}
                        ).status_code == 202
    assert _port_groups(network, server["id"]) == [*before, dup[0]]
