"""Nova's deprecated network proxies on the compute API (os-networks, os-tenant-networks,
os-security-groups, os-security-group-rules): the network service's resources in Nova's
shapes (checked against tempest's compute schemas), Nova's errors, gone above 2.35."""

from __future__ import annotations

import uuid

import httpx
import pytest

from novalite.identity import bootstrap
from tests.functional.tempest_schemas import check


@pytest.fixture
def demo(cloud):
    """The demo project's compute client (it owns `private`) at the proxies' microversion."""
    project = bootstrap.project_ids("demo")[0]
    return httpx.Client(base_url=f"{cloud.base_url}/compute/v2.1", timeout=30, headers={
        "X-Auth-Token": f"demo:{project}", "OpenStack-API-Version": "compute 2.35"})


def test_os_networks_lists_and_shows_by_id_and_by_name(demo):
    listed = demo.get("/os-networks").json()["networks"]
    private = next(n for n in listed if n["label"] == "private")
    assert private["cidr"] is None and "project_id" not in private
    by_id = demo.get(f"/os-networks/{private['id']}").json()["network"]
    assert by_id == private
    assert demo.get("/os-networks/private").json()["network"] == private
    missing = demo.get(f"/os-networks/{uuid.uuid4()}")
    assert missing.status_code == 404
    assert missing.json()["itemNotFound"]["message"] == "Network not found"


def test_os_networks_shows_the_admin_fields_to_an_admin(cloud):
    (first, *_) = cloud.api.get("/os-networks").json()["networks"]
    assert "project_id" in first and first["mtu"] is None


def test_os_tenant_networks_match_tempest(demo):
    body = check(demo.get("/os-tenant-networks"), "v2_1", "tenant_networks",
                 "list_tenant_networks")
    private = next(n for n in body["networks"] if n["label"] == "private")
    shown = check(demo.get(f"/os-tenant-networks/{private['id']}"), "v2_1",
                  "tenant_networks", "get_tenant_network")
    assert shown["network"] == private


# A fixed uuid: parametrize ids must be the same in every process that collects them.
UNKNOWN = "6f1e2a4c-1b0d-4f4e-9a57-3c2d8b1e0f90"


@pytest.mark.parametrize(("method", "path"), [
    ("POST", "/os-networks"), ("DELETE", f"/os-networks/{UNKNOWN}"),
    ("POST", "/os-networks/add"), ("POST", "/os-tenant-networks"),
    ("DELETE", f"/os-tenant-networks/{UNKNOWN}")])
def test_network_changes_are_gone_as_in_nova(demo, method, path):
    response = demo.request(method, path, json={"network": {"label": "x"}})
    assert response.status_code == 410, response.text


@pytest.mark.parametrize("path", ["/os-networks", "/os-tenant-networks",
                                  "/os-security-groups"])
def test_the_proxies_are_404_above_2_35(demo, path):
    response = demo.get(path, headers={"OpenStack-API-Version": "compute 2.36"})
    assert response.status_code == 404
    assert response.json()["itemNotFound"]["message"] == "The resource could not be found."


def test_security_group_lifecycle_matches_tempest(demo):
    made = check(demo.post("/os-security-groups", json={"security_group": {
        "name": "web", "description": "web servers"}}), "v2_1", "security_groups",
        "get_security_group")["security_group"]
    assert made["name"] == "web" and made["rules"] == []
    listed = check(demo.get("/os-security-groups"), "v2_1", "security_groups",
                   "list_security_groups")["security_groups"]
    assert {"default", "web"} <= {g["name"] for g in listed}
    default = next(g for g in listed if g["name"] == "default")
    ssh = check(demo.post("/os-security-group-rules", json={"security_group_rule": {
        "parent_group_id": made["id"], "ip_protocol": "tcp", "from_port": 22,
        "to_port": 22, "cidr": "10.0.0.0/8"}}), "v2_1", "security_groups",
        "create_security_group_rule")["security_group_rule"]
    assert ssh["ip_range"] == {"cidr": "10.0.0.0/8"} and ssh["from_port"] == 22
    from_default = check(demo.post("/os-security-group-rules", json={"security_group_rule": {
        "parent_group_id": made["id"], "ip_protocol": "icmp", "group_id": default["id"]}}),
        "v2_1", "security_groups", "create_security_group_rule")["security_group_rule"]
    assert from_default["group"]["name"] == "default"
    assert (from_default["from_port"], from_default["to_port"]) == (-1, -1)
    shown = check(demo.get(f"/os-security-groups/{made['id']}"), "v2_1", "security_groups",
                  "get_security_group")["security_group"]
    assert {r["id"] for r in shown["rules"]} == {ssh["id"], from_default["id"]}
    renamed = check(demo.put(f"/os-security-groups/{made['id']}", json={"security_group": {
        "name": "www", "description": "renamed"}}), "v2_1", "security_groups",
        "update_security_group")["security_group"]
    assert renamed["name"] == "www"
    check(demo.delete(f"/os-security-group-rules/{ssh['id']}"), "v2_1", "security_groups",
          "delete_security_group_rule")
    check(demo.delete(f"/os-security-groups/{made['id']}"), "v2_1", "security_groups",
          "delete_security_group")
    assert demo.get(f"/os-security-groups/{made['id']}").status_code == 404


@pytest.fixture
def group(demo):
    made = demo.post("/os-security-groups", json={"security_group": {
        "name": "neg", "description": ""}}).json()["security_group"]
    yield made
    demo.delete(f"/os-security-groups/{made['id']}")


@pytest.mark.parametrize(("rule", "message"), [
    ({"ip_protocol": "gre", "from_port": 1, "to_port": 2}, "Invalid IP protocol gre."),
    ({"ip_protocol": "tcp", "from_port": 80, "to_port": 22},
     "Invalid port range 80:22. Former value cannot be greater than the later"),
    ({"ip_protocol": "udp", "from_port": 0, "to_port": 70000},
     "Invalid port range 0:70000. Valid UDP ports should be between 1-65535"),
    ({"ip_protocol": "icmp", "from_port": 300, "to_port": 0},
     "Invalid port range 300:0. For ICMP, the type:code must be valid"),
    ({"ip_protocol": "tcp", "from_port": "x", "to_port": 2},
     "Invalid input received: To and From ports must be integers"),
    ({"ip_protocol": "tcp", "from_port": 1, "to_port": 2, "cidr": "10.0.0.300/8"},
     "10.0.0.300/8 is not a valid IP network."),
    ({"cidr": "10.0.0.0/8"}, "Not enough parameters to build a valid rule."),
])
def test_bad_rules_are_400_with_novas_words(demo, group, rule, message):
    response = demo.post("/os-security-group-rules", json={"security_group_rule": {
        "parent_group_id": group["id"], **rule}})
    assert response.status_code == 400, response.text
    assert response.json()["badRequest"]["message"] == message


def test_a_duplicate_rule_is_400(demo, group):
    rule = {"security_group_rule": {"parent_group_id": group["id"], "ip_protocol": "tcp",
                                    "from_port": 22, "to_port": 22}}
    assert demo.post("/os-security-group-rules", json=rule).status_code == 200
    again = demo.post("/os-security-group-rules", json=rule)
    assert again.status_code == 400
    assert again.json()["badRequest"]["message"] == (
        f"This rule already exists in group {group['id']}")


def test_unknown_and_malformed_ids(demo):
    for path in ("/os-security-groups/not-a-uuid", "/os-security-group-rules/not-a-uuid"):
        response = demo.request("GET" if "groups" in path else "DELETE", path)
        assert response.status_code == 400
        assert response.json()["badRequest"]["message"] == "Security group id should be uuid"
    assert demo.get(f"/os-security-groups/{uuid.uuid4()}").status_code == 404
    assert demo.delete(f"/os-security-group-rules/{uuid.uuid4()}").status_code == 404
    orphan = demo.post("/os-security-group-rules", json={"security_group_rule": {
        "parent_group_id": str(uuid.uuid4()), "ip_protocol": "tcp", "from_port": 1,
        "to_port": 2}})
    assert orphan.status_code == 404


@pytest.mark.parametrize("body", [
    {}, {"security_group": {"name": "x"}},
    {"security_group": {"name": "x" * 256, "description": ""}},
    {"security_group": {"name": "x", "description": "", "rules": []}}])
def test_bad_group_bodies_are_400(demo, body):
    assert demo.post("/os-security-groups", json=body).status_code == 400


def test_the_default_group_cannot_be_deleted(demo):
    groups = demo.get("/os-security-groups").json()["security_groups"]
    default = next(g for g in groups if g["name"] == "default")
    response = demo.delete(f"/os-security-groups/{default['id']}")
    assert response.status_code == 400, response.text
