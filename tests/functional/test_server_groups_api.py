"""/os-server-groups through real HTTP, and boots into groups through the running cloud."""

import uuid

import numpy as np
import pytest

from novalite.image import db as images
from novalite.scheduler.filters.affinity_filter import ServerGroupAntiAffinityFilter

GROUP_FILTERS = ["ComputeFilter", "RamFilter", "ServerGroupAntiAffinityFilter",
                 "ServerGroupAffinityFilter"]


@pytest.fixture
def group_cloud(conf, cloud_factory):
    conf.set_override("enabled_filters", GROUP_FILTERS, group="filter_scheduler")
    return cloud_factory(hosts=2)


def _headers(version=None, token=None):
    headers = {"OpenStack-API-Version": f"compute {version}"} if version else {}
    if token:
        headers["X-Auth-Token"] = token
    return headers


def _create(cloud, version="2.1", token=None, **group):
    response = cloud.api.post("/os-server-groups", json={"server_group": group},
                              headers=_headers(version, token))
    assert response.status_code == 200, response.text
    return response.json()["server_group"]


def _anti_affinity(cloud, version="2.1", token=None, **rules):
    if version == "2.64":
        return _create(cloud, version, token, name="g", policy="anti-affinity", rules=rules)
    return _create(cloud, version, token, name="g", policies=["anti-affinity"])


def _boot_into(cloud, group_id, name="vm", token=None, **server):
    body = {"server": {"name": name, "flavorRef": "1",
                       "imageRef": images.DEFAULT_IMAGE_ID, **server},
            "os:scheduler_hints": {"group": group_id}}
    return cloud.api.post("/servers", json=body, headers=_headers(token=token))


def _scheduler_hosts(cloud):
    """The scheduler's copy of which instances each host holds (kept by the computes)."""
    scheduler = next(s.manager for s in cloud.aio.services
                     if s.binary == "novalite-scheduler")
    return scheduler.driver.host_manager._instance_info


def _settled(cloud, server_id, *statuses):
    """Wait for the server's status and for the scheduler to know where it runs, so the
    next boot is judged on it (as it would be a moment later in a real cloud)."""
    server = cloud.wait_status(server_id, *statuses)
    host = server["OS-EXT-SRV-ATTR:host"]
    if server["status"] == "ACTIVE":
        cloud.wait(lambda: server_id in _scheduler_hosts(cloud).get(host, set()))
    return server


def _booted(cloud, group_id, name="vm", **server):
    response = _boot_into(cloud, group_id, name, **server)
    assert response.status_code == 202, response.text
    return response.json()["server"]["id"]


def _host(cloud, group_id, name="vm"):
    return _settled(cloud, _booted(cloud, group_id, name), "ACTIVE")["OS-EXT-SRV-ATTR:host"]


# --- the API -----------------------------------------------------------------------------


def test_create_show_list_delete_before_2_13(cloud):
    group = _create(cloud, name="web", policies=["anti-affinity"])
    assert set(group) == {"id", "name", "policies", "members", "metadata"}
    assert (group["name"], group["policies"], group["members"], group["metadata"]) == \
        ("web", ["anti-affinity"], [], {})
    shown = cloud.api.get(f"/os-server-groups/{group['id']}")
    assert shown.status_code == 200 and shown.json()["server_group"] == group
    listed = cloud.api.get("/os-server-groups").json()["server_groups"]
    assert listed == [group]
    assert cloud.api.delete(f"/os-server-groups/{group['id']}").status_code == 204
    gone = cloud.api.get(f"/os-server-groups/{group['id']}")
    assert gone.status_code == 404
    assert gone.json()["itemNotFound"]["message"] == \
        f"Instance group {group['id']} could not be found."


def test_shapes_by_microversion(cloud):
    group = _create(cloud, "2.13", name="g", policies=["affinity"])
    assert set(group) == {"id", "name", "policies", "members", "metadata", "project_id",
                          "user_id"}
    assert (group["project_id"], group["user_id"]) == ("admin", "admin")
    soft = _create(cloud, "2.15", name="s", policies=["soft-anti-affinity"])
    assert soft["policies"] == ["soft-anti-affinity"]
    new = _create(cloud, "2.64", name="n", policy="anti-affinity",
                  rules={"max_server_per_host": "3"})
    assert set(new) == {"id", "name", "policy", "rules", "members", "project_id", "user_id"}
    assert (new["policy"], new["rules"]) == ("anti-affinity", {"max_server_per_host": 3})
    plain = _create(cloud, "2.64", name="p", policy="affinity")
    assert plain["rules"] == {}
    old_view = cloud.api.get(f"/os-server-groups/{new['id']}").json()["server_group"]
    assert old_view["policies"] == ["anti-affinity"] and old_view["metadata"] == {}
    assert "rules" not in old_view and "project_id" not in old_view
    listed = cloud.api.get("/os-server-groups", headers=_headers("2.64")).json()
    assert [g["id"] for g in listed["server_groups"]] == \
        [group["id"], soft["id"], new["id"], plain["id"]]
    assert "policies" not in listed["server_groups"][0]


@pytest.mark.parametrize("version, group, message", [
    ("2.1", {"name": "g", "policies": ["soft-affinity"]}, "is not one of"),
    ("2.14", {"name": "g", "policies": ["soft-anti-affinity"]}, "is not one of"),
    ("2.1", {"name": "g", "policies": ["affinity", "anti-affinity"]}, "is too long"),
    ("2.1", {"name": "g", "policies": []}, "should be non-empty"),
    ("2.1", {"name": "g"}, "'policies' is a required property"),
    ("2.1", {"name": "g", "policies": ["affinity"], "rules": {}},
     "Additional properties are not allowed"),
    ("2.1", {"policies": ["affinity"]}, "'name' is a required property"),
    ("2.1", {"name": "", "policies": ["affinity"]}, "should be non-empty"),
    ("2.1", {"name": " g", "policies": ["affinity"]},
     "An invalid 'name' value was provided. The name must be: printable characters. Can "
     "not start or end with whitespace."),
    ("2.1", {"name": "x" * 256, "policies": ["affinity"]}, "is too long"),
    ("2.63", {"name": "g", "policy": "affinity"}, "'policies' is a required property"),
    ("2.64", {"name": "g", "policies": ["affinity"]}, "'policy' is a required property"),
    ("2.64", {"name": "g", "policy": "affinity", "policies": ["affinity"]},
     "Additional properties are not allowed"),
    ("2.64", {"name": "g"}, "'policy' is a required property"),
    ("2.64", {"name": "g", "policy": "legacy"}, "is not one of"),
    ("2.64", {"name": "g", "policy": "affinity", "rules": {"max_server_per_host": 2}},
     "Only anti-affinity policy supports rules."),
    ("2.64", {"name": "g", "policy": "soft-anti-affinity",
              "rules": {"max_server_per_host": 2}}, "Only anti-affinity policy supports rules."),
    ("2.64", {"name": "g", "policy": "anti-affinity", "rules": {"max_server_per_host": 0}},
     "0 is less than the minimum of 1"),
    ("2.64", {"name": "g", "policy": "anti-affinity", "rules": {"max_server_per_host": "0"}},
     "0 is less than the minimum of 1"),
    ("2.64", {"name": "g", "policy": "anti-affinity", "rules": {"max_server_per_host": "x"}},
     "does not match"),
    ("2.64", {"name": "g", "policy": "anti-affinity", "rules": {"max_server_per_host": 1.5}},
     "is not of type"),
    ("2.64", {"name": "g", "policy": "anti-affinity", "rules": {"other": 1}},
     "Additional properties are not allowed"),
])
def test_create_validation(cloud, version, group, message):
    response = cloud.api.post("/os-server-groups", json={"server_group": group},
                              headers=_headers(version))
    assert response.status_code == 400, response.text
    assert message in response.json()["badRequest"]["message"]
    assert cloud.api.get("/os-server-groups").json()["server_groups"] == []


def test_create_needs_a_body(cloud):
    for body in (None, {}, {"server_group": "g"}, {"server_group": {"name": "g",
                 "policies": ["affinity"]}, "extra": 1}):
        assert cloud.api.post("/os-server-groups", json=body).status_code == 400


def test_another_projects_group_is_not_found(cloud):
    alice, bob = "alice:p1", "bob:p2"
    group = _anti_affinity(cloud, "2.13", alice)
    assert group["project_id"] == "p1" and group["user_id"] == "alice"
    for method in ("GET", "DELETE"):
        response = cloud.api.request(method, f"/os-server-groups/{group['id']}",
                                     headers=_headers(token=bob))
        assert response.status_code == 404, response.text
        assert response.json()["itemNotFound"]["message"] == \
            f"Instance group {group['id']} could not be found."
    assert cloud.api.get("/os-server-groups", headers=_headers(token=bob)).json() == \
        {"server_groups": []}
    # all_projects is an admin's; others get their own project's, as in Nova
    assert cloud.api.get("/os-server-groups", params={"all_projects": "True"},
                         headers=_headers(token=bob)).json() == {"server_groups": []}
    admin_own = cloud.api.get("/os-server-groups").json()["server_groups"]
    assert admin_own == []
    every = cloud.api.get("/os-server-groups", params={"all_projects": "True"}).json()
    assert [g["id"] for g in every["server_groups"]] == [group["id"]]
    assert cloud.api.get(f"/os-server-groups/{group['id']}").status_code == 200
    # nor can bob boot into it: an unknown group, to him
    response = _boot_into(cloud, group["id"], token=bob)
    assert response.status_code == 400
    assert response.json()["badRequest"]["message"] == \
        f"Instance group {group['id']} could not be found."
    assert cloud.api.delete(f"/os-server-groups/{group['id']}",
                            headers=_headers(token=alice)).status_code == 204


def test_list_limit_and_offset(cloud):
    ids = [_create(cloud, name=f"g{n}", policies=["affinity"])["id"] for n in range(3)]

    def listed(**params):
        response = cloud.api.get("/os-server-groups", params=params)
        assert response.status_code == 200, response.text
        return [g["id"] for g in response.json()["server_groups"]]

    assert listed(limit=2) == ids[:2]
    assert listed(offset=1, limit=1) == ids[1:2]
    assert listed(offset=2) == ids[2:]
    assert listed(limit=0) == ids  # 0 means the maximum, as in Nova
    assert listed(offset=5) == []
    for params in ({"limit": "abc"}, {"offset": "-1"}, {"limit": ""}):
        response = cloud.api.get("/os-server-groups", params=params)
        assert response.status_code == 400
        name = next(iter(params))
        assert response.json()["badRequest"]["message"].startswith(
            f"Invalid input for query parameters {name}. Value: {params[name]}.")


def test_group_quota(conf, cloud):
    conf.set_override("server_groups", 2, group="quota")
    _create(cloud, name="a", policies=["affinity"])
    _create(cloud, name="b", policies=["affinity"])
    response = cloud.api.post("/os-server-groups", json={"server_group": {
        "name": "c", "policies": ["affinity"]}})
    assert response.status_code == 403
    assert response.json()["forbidden"]["message"] == "Quota exceeded, too many server groups."
    other = _create(cloud, token="u:other-project", name="c", policies=["affinity"])
    assert other["name"] == "c"


# --- booting into groups -----------------------------------------------------------------


def test_boot_hint_must_name_a_group(cloud):
    missing = str(uuid.uuid4())
    response = _boot_into(cloud, missing)
    assert response.status_code == 400
    assert response.json()["badRequest"]["message"] == \
        f"Instance group {missing} could not be found."
    response = _boot_into(cloud, "not-a-uuid")
    assert response.status_code == 400
    assert "Invalid input for field/attribute group" in response.json()["badRequest"]["message"]
    assert cloud.api.get("/servers").json()["servers"] == []


def test_member_quota(conf, cloud):
    conf.set_override("server_group_members", 2, group="quota")
    group = _create(cloud, name="g", policies=["affinity"])
    response = _boot_into(cloud, group["id"], min_count=3, max_count=3)
    assert response.status_code == 403
    assert response.json()["forbidden"]["message"] == \
        "Quota exceeded, too many servers in group"
    assert cloud.api.get("/servers").json()["servers"] == []
    first = _booted(cloud, group["id"], min_count=2, max_count=2)
    shown = cloud.api.get(f"/os-server-groups/{group['id']}").json()["server_group"]
    assert first in shown["members"] and len(shown["members"]) == 2
    assert _boot_into(cloud, group["id"]).status_code == 403


def test_anti_affinity_spreads_then_explains_and_frees_a_slot_on_delete(group_cloud):
    cloud = group_cloud
    group = _anti_affinity(cloud)
    first = _booted(cloud, group["id"], "first")
    first_host = _settled(cloud, first, "ACTIVE")["OS-EXT-SRV-ATTR:host"]
    second_host = _host(cloud, group["id"], "second")
    assert {first_host, second_host} == {"compute1", "compute2"}
    third = _settled(cloud, _booted(cloud, group["id"], "third"), "ERROR")
    assert "ServerGroupAntiAffinityFilter removed 2" in third["fault"]["message"]
    members = cloud.api.get(f"/os-server-groups/{group['id']}").json()["server_group"]
    assert len(members["members"]) == 3 and third["id"] in members["members"]
    for server_id in (first, third["id"]):
        assert cloud.api.delete(f"/servers/{server_id}").status_code == 204
        cloud.wait_gone(server_id)
    cloud.wait(lambda: first not in _scheduler_hosts(cloud).get(first_host, set()))
    members = cloud.api.get(f"/os-server-groups/{group['id']}").json()["server_group"]
    assert first not in members["members"] and len(members["members"]) == 1
    assert _host(cloud, group["id"], "again") == first_host


def test_anti_affinity_multi_create_lands_one_per_host(group_cloud):
    cloud = group_cloud
    group = _anti_affinity(cloud)
    _booted(cloud, group["id"], "many", min_count=2, max_count=2)
    servers = cloud.api.get("/servers").json()["servers"]
    hosts = {_settled(cloud, s["id"], "ACTIVE")["OS-EXT-SRV-ATTR:host"] for s in servers}
    assert hosts == {"compute1", "compute2"}


def test_affinity_keeps_members_together(group_cloud):
    cloud = group_cloud
    group = _create(cloud, name="g", policies=["affinity"])
    _booted(cloud, group["id"], "pair", min_count=2, max_count=2)
    pair = [s["id"] for s in cloud.api.get("/servers").json()["servers"]]
    hosts = {_settled(cloud, s, "ACTIVE")["OS-EXT-SRV-ATTR:host"] for s in pair}
    assert len(hosts) == 1
    assert _host(cloud, group["id"], "later") in hosts


def test_max_server_per_host_allows_that_many_per_host(group_cloud):
    cloud = group_cloud
    group = _anti_affinity(cloud, "2.64", max_server_per_host=2)
    _booted(cloud, group["id"], "four", min_count=4, max_count=4)
    ids = [s["id"] for s in cloud.api.get("/servers").json()["servers"]]
    hosts = [_settled(cloud, s, "ACTIVE")["OS-EXT-SRV-ATTR:host"] for s in ids]
    assert sorted(hosts) == ["compute1", "compute1", "compute2", "compute2"]
    fifth = _settled(cloud, _booted(cloud, group["id"], "fifth"), "ERROR")
    assert "ServerGroupAntiAffinityFilter removed 2" in fifth["fault"]["message"]


def test_soft_anti_affinity_spreads_but_never_refuses(group_cloud):
    cloud = group_cloud
    group = _create(cloud, "2.15", name="g", policies=["soft-anti-affinity"])
    hosts = [_host(cloud, group["id"], f"vm{n}") for n in range(3)]
    assert set(hosts[:2]) == {"compute1", "compute2"}
    assert hosts[2] in {"compute1", "compute2"}


def test_policy_without_its_filter_is_refused_with_a_fault(conf, cloud_factory):
    conf.set_override("enabled_filters", ["ComputeFilter", "RamFilter"],
                      group="filter_scheduler")
    cloud = cloud_factory(hosts=2)
    group = _anti_affinity(cloud)
    server = _settled(cloud, _booted(cloud, group["id"]), "ERROR")
    assert server["fault"]["message"] == \
        "ServerGroup policy is not supported: ServerGroupAntiAffinityFilter not configured"


@pytest.mark.parametrize("upcall", [True, False])
def test_compute_late_check_catches_a_stale_scheduler(conf, cloud_factory, monkeypatch,
                                                     upcall):
    """A scheduler whose anti-affinity filter saw nothing (another scheduler placed the
    member meanwhile) picks the member's host: the compute refuses and the build goes
    on to the alternate — unless the upcall is disabled."""
    conf.set_override("enabled_filters", GROUP_FILTERS, group="filter_scheduler")
    for weight in ("ram", "cpu", "disk"):  # stack: the member's host is preferred
        conf.set_override(f"{weight}_weight_multiplier", -1.0, group="filter_scheduler")
    conf.set_override("disable_group_policy_check_upcall", not upcall, group="workarounds")
    cloud = cloud_factory(hosts=2)
    group = _anti_affinity(cloud)
    first_host = _host(cloud, group["id"], "first")
    monkeypatch.setattr(ServerGroupAntiAffinityFilter, "host_passes", lambda *a: True)
    monkeypatch.setattr(ServerGroupAntiAffinityFilter, "filter_array",
                        lambda self, table, rows, spec: np.ones(len(rows), dtype=bool))
    second = _settled(cloud, _booted(cloud, group["id"], "second"), "ACTIVE")
    assert (second["OS-EXT-SRV-ATTR:host"] != first_host) is upcall
