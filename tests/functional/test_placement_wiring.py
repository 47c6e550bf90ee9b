"""The boot flow through placement: computes report providers, the scheduler claims,
reschedules move the claim, deletes and failures free it, the audit heals."""

from __future__ import annotations

import logging
import uuid

import httpx
import pytest

from novalite.cmd import manage_placement
from novalite.db.api import compute_nodes

MV = {"OpenStack-API-Version": "placement 1.39"}


@pytest.fixture
def placement(cloud):
    return httpx.Client(base_url=f"{cloud.base_url}/placement", headers=MV, timeout=30)


def _providers(placement) -> dict[str, str]:
    """name -> uuid of every provider."""
    body = placement.get("/resource_providers").json()
    return {rp["name"]: rp["uuid"] for rp in body["resource_providers"]}


def _allocations(placement, consumer: str) -> dict:
    return placement.get(f"/allocations/{consumer}").json()["allocations"]


def _on(providers: dict[str, str], allocations: dict) -> set[str]:
    names = {u: n for n, u in providers.items()}
    return {names[rp] for rp in allocations}


def test_each_compute_node_is_a_provider_with_its_inventory_and_traits(cloud, placement):
    providers = _providers(placement)
    assert set(providers) == {"compute1", "compute2"}
    for node in compute_nodes.compute_node_get_all():
        assert providers[node.hypervisor_hostname] == node.uuid
        inventory = placement.get(f"/resource_providers/{node.uuid}/inventories").json()
        vcpu = inventory["inventories"]["VCPU"]
        assert (vcpu["total"], vcpu["allocation_ratio"]) == (node.vcpus, 4.0)
        assert inventory["inventories"]["MEMORY_MB"]["reserved"] == 512
        traits = placement.get(f"/resource_providers/{node.uuid}/traits").json()["traits"]
        assert "COMPUTE_IMAGE_TYPE_QCOW2" in traits


def test_a_boot_claims_its_flavor_and_a_delete_frees_it(cloud, placement):
    server_id = cloud.boot("claimed", flavor="2")  # m1.small: 1 vCPU, 2048 MB, 20 GB
    server = cloud.wait_status(server_id, "ACTIVE")
    allocations = _allocations(placement, server_id)
    assert _on(_providers(placement), allocations) == {server["OS-EXT-SRV-ATTR:host"]}
    [held] = allocations.values()
    assert held["resources"] == {"VCPU": 1, "MEMORY_MB": 2048, "DISK_GB": 20}
    consumer = placement.get(f"/allocations/{server_id}").json()
    assert consumer["project_id"] == "admin"
    assert cloud.api.delete(f"/servers/{server_id}").status_code == 204
    cloud.wait_gone(server_id)
    cloud.wait(lambda: _allocations(placement, server_id) == {}, timeout=5)


def test_a_reschedule_moves_the_claim_to_the_alternate(cloud, placement):
    def fail(*args, **kwargs):
        raise RuntimeError("hypervisor exploded")

    cloud.compute("compute1").driver.spawn = fail
    servers = [cloud.boot(f"vm{i}") for i in range(3)]
    providers = _providers(placement)
    for server_id in servers:
        assert cloud.wait_status(server_id, "ACTIVE")["OS-EXT-SRV-ATTR:host"] == "compute2"
        assert _on(providers, _allocations(placement, server_id)) == {"compute2"}
    usages = placement.get(f"/resource_providers/{providers['compute1']}/usages").json()
    assert set(usages["usages"].values()) == {0}


def test_a_failed_build_frees_its_claim(cloud, placement):
    def fail(*args, **kwargs):
        raise RuntimeError("hypervisor exploded")

    for host in ("compute1", "compute2"):
        cloud.compute(host).driver.spawn = fail
    server_id = cloud.boot()
    cloud.wait_status(server_id, "ERROR")
    assert _allocations(placement, server_id) == {}


def test_host_aggregates_are_mirrored_into_placement(cloud, placement):
    aggregate = cloud.api.post("/os-aggregates", json={"aggregate": {
        "name": "rack1", "availability_zone": "az1"}},
        headers={"OpenStack-API-Version": "compute 2.41"}).json()["aggregate"]
    url = f"/os-aggregates/{aggregate['id']}/action"
    assert cloud.api.post(url, json={"add_host": {"host": "compute2"}}).status_code == 200
    rp = _providers(placement)["compute2"]
    mirrored = placement.get(f"/resource_providers/{rp}/aggregates").json()["aggregates"]
    assert mirrored == [aggregate["uuid"]]
    server = cloud.wait_status(cloud.boot("zoned", availability_zone="az1"), "ACTIVE")
    assert server["OS-EXT-SRV-ATTR:host"] == "compute2"
    cloud.api.delete(f"/servers/{server['id']}")
    cloud.wait_gone(server["id"])
    assert cloud.api.post(url, json={"remove_host": {"host": "compute2"}}).status_code == 200
    assert placement.get(f"/resource_providers/{rp}/aggregates").json()["aggregates"] == []


def test_the_audit_finds_and_heals_both_kinds_of_drift(cloud, placement, capsys):
    server_id = cloud.boot("drifted")
    host = cloud.wait_status(server_id, "ACTIVE")["OS-EXT-SRV-ATTR:host"]
    providers = _providers(placement)
    orphan = str(uuid.uuid4())
    body = {"allocations": {providers[host]: {"resources": {"VCPU": 1}}},
            "project_id": "p", "user_id": "u", "consumer_generation": None,
            "consumer_type": "INSTANCE"}
    assert placement.put(f"/allocations/{orphan}", json=body).status_code == 204
    assert placement.delete(f"/allocations/{server_id}").status_code == 204

    assert manage_placement.audit(heal=False) == manage_placement.FOUND
    out = capsys.readouterr().out
    assert f"Allocations of {orphan} on {host}" in out
    assert f"Instance {server_id} on {host} holds no allocations" in out
    assert "run again with --heal" in out

    assert manage_placement.audit(heal=True) == manage_placement.HEALED
    assert _allocations(placement, orphan) == {}
    assert _on(providers, _allocations(placement, server_id)) == {host}
    assert manage_placement.audit(heal=False) == 0


def test_with_tokens_checked_the_services_still_reach_placement(conf, cloud_factory):
    conf.set_override("auth_strategy", "keystone", group="api")
    cloud = cloud_factory()
    auth = {"auth": {"identity": {"methods": ["password"], "password": {"user": {
        "name": "demo", "password": cloud.aio.identity.passwords["demo"],
        "domain": {"name": "Default"}}}},
        "scope": {"project": {"name": "demo", "domain": {"name": "Default"}}}}}
    token = httpx.post(f"{cloud.base_url}/identity/v3/auth/tokens",
                       json=auth).headers["X-Subject-Token"]
    cloud.api.headers["X-Auth-Token"] = token
    server = cloud.wait_status(cloud.boot("tokened"), "ACTIVE", "ERROR")
    assert server["status"] == "ACTIVE", server.get("fault")
    # placement itself is for admins: a member's token is refused
    usages = httpx.get(f"{cloud.base_url}/placement/usages", headers={**MV,
                       "X-Auth-Token": token}, params={"project_id": "x"})
    assert usages.status_code == 403


def test_the_services_reach_placement_in_process(cloud, caplog):
    """The all-in-one's services call its app without a socket (no client address), and
    the API logs each call as it logs any request."""
    caplog.set_level(logging.DEBUG, logger="novalite.api")
    server_id = cloud.boot("in-process")
    cloud.wait_status(server_id, "ACTIVE")
    claims = [r.args for r in caplog.records
              if r.name == "novalite.api" and isinstance(r.args, tuple) and len(r.args) > 3
              and r.args[2] == f"/placement/allocations/{server_id}"]
    assert [(client, method, status) for client, method, _, status, *_ in claims] == [
        ("-", "PUT", 204)]
