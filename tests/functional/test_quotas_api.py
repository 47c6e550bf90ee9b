"""/os-quota-sets, /os-quota-class-sets and /limits through real HTTP, checked against
tempest's schemas per version, and the limits they set enforced on servers, key pairs,
server groups and metadata."""

import pytest

from novalite.image import db as images
from tests.functional.tempest_schemas import check

MV = "X-OpenStack-Nova-API-Version"
ALICE = {"X-Auth-Token": "alice:p1"}
BOB = {"X-Auth-Token": "bob:p2"}


def _h(version="2.1", who=None):
    return {MV: version, **(who or {})}


def _fault(response, status, name="badRequest"):
    assert response.status_code == status, response.text
    return response.json()[name]["message"]


@pytest.fixture
def cloud(cloud_factory, conf):
    started = cloud_factory()
    for resource, limit in (("instances", 10), ("cores", 20), ("ram", 51200)):
        conf.set_override(resource, limit, group="quota")
    return started


def _boot(cloud, who=ALICE, flavor="1"):
    body = {"server": {"name": "vm", "flavorRef": flavor, "imageRef": images.DEFAULT_IMAGE_ID}}
    return cloud.api.post("/servers", json=body, headers=who)


@pytest.mark.parametrize("version,package", [("2.1", "v2_1"), ("2.36", "v2_36"),
                                             ("2.57", "v2_57")])
def test_show_defaults_detail_update_delete(cloud, version, package):
    shown = check(cloud.api.get("/os-quota-sets/p1", headers=_h(version, ALICE)),
                  package, "quotas", "get_quota_set")["quota_set"]
    assert (shown["id"], shown["instances"], shown["cores"]) == ("p1", 10, 20)
    assert ("floating_ips" in shown) == (version == "2.1")
    check(cloud.api.get("/os-quota-sets/p1/defaults", headers=_h(version, ALICE)),
          package, "quotas", "get_quota_set")
    updated = check(cloud.api.put("/os-quota-sets/p1", headers=_h(version),
                                  json={"quota_set": {"instances": 3, "cores": "7"}}),
                    package, "quotas", "update_quota_set")["quota_set"]
    assert "id" not in updated and (updated["instances"], updated["cores"]) == (3, 7)
    detail = check(cloud.api.get("/os-quota-sets/p1/detail", headers=_h(version, ALICE)),
                   package, "quotas", "get_quota_set_details")["quota_set"]
    assert detail["instances"] == {"limit": 3, "in_use": 0, "reserved": 0}
    check(cloud.api.delete("/os-quota-sets/p1", headers=_h(version)), package, "quotas",
          "delete_quota")
    assert cloud.api.get("/os-quota-sets/p1").json()["quota_set"]["instances"] == 10


def test_limits_are_enforced_and_shown(cloud):
    cloud.api.put("/os-quota-sets/p1", json={"quota_set": {"instances": 1}})
    first = _boot(cloud)
    assert first.status_code == 202, first.text
    assert _fault(_boot(cloud), 403, "forbidden") == (
        "Quota exceeded for instances: Requested 1, but already used 1 of 1 instances")
    assert _boot(cloud, BOB).status_code == 202  # another project keeps the defaults
    absolute = cloud.api.get("/limits", headers=ALICE).json()["limits"]["absolute"]
    assert (absolute["maxTotalInstances"], absolute["totalInstancesUsed"]) == (1, 1)
    assert cloud.api.get("/limits", params={"reserved": 1},
                         headers=ALICE).status_code == 200
    cloud.api.put("/os-quota-sets/p1", json={"quota_set": {"key_pairs": 0,
                                                           "server_groups": 0,
                                                           "metadata_items": 1}})
    assert _fault(cloud.api.post("/os-keypairs", json={"keypair": {"name": "k"}},
                                 headers=ALICE), 403, "forbidden") == (
        "Quota exceeded, too many key pairs.")
    assert _fault(cloud.api.post("/os-server-groups", headers=ALICE, json={
        "server_group": {"name": "g", "policies": ["affinity"]}}), 403, "forbidden") == (
        "Quota exceeded, too many server groups.")
    server_id = first.json()["server"]["id"]
    cloud.wait_status(server_id, "ACTIVE")
    assert _fault(cloud.api.post(f"/servers/{server_id}/metadata", headers=ALICE,
                                 json={"metadata": {"a": "1", "b": "2"}}), 403,
                  "forbidden") == "Maximum number of metadata items exceeds 1"


def test_update_checks_usage_unless_forced_and_users_within_the_project(cloud):
    assert _boot(cloud).status_code == 202
    assert _fault(cloud.api.put("/os-quota-sets/p1", json={"quota_set": {"instances": 0}}),
                  400) == ("Quota limit 0 for instances must be greater than or equal to "
                           "already used and reserved 1.")
    assert cloud.api.put("/os-quota-sets/p1", json={"quota_set": {"instances": 0,
                                                                  "force": True}}
                         ).status_code == 200
    cloud.api.put("/os-quota-sets/p1", json={"quota_set": {"cores": 8}})
    assert _fault(cloud.api.put("/os-quota-sets/p1?user_id=alice",
                                json={"quota_set": {"cores": 9}}), 400) == (
        "Quota limit 9 for cores must be less than or equal to 8.")
    user = cloud.api.put("/os-quota-sets/p1?user_id=alice", json={"quota_set": {"cores": 4}})
    assert user.json()["quota_set"]["cores"] == 4
    assert cloud.api.get("/os-quota-sets/p1").json()["quota_set"]["cores"] == 8
    assert cloud.api.get("/os-quota-sets/p1?user_id=alice").json()["quota_set"]["cores"] == 4
    assert cloud.api.delete("/os-quota-sets/p1?user_id=alice").status_code == 202
    assert cloud.api.get("/os-quota-sets/p1?user_id=alice").json()["quota_set"]["cores"] == 8


def test_errors(cloud):
    assert "floating_ips" in _fault(cloud.api.put(
        "/os-quota-sets/p1", headers=_h("2.36"), json={"quota_set": {"floating_ips": 1}}),
        400)
    assert "injected_files" in _fault(cloud.api.put(
        "/os-quota-sets/p1", headers=_h("2.57"), json={"quota_set": {"injected_files": 1}}),
        400)
    assert "instances" in _fault(cloud.api.put(
        "/os-quota-sets/p1", json={"quota_set": {"instances": -2}}), 400)
    assert _fault(cloud.api.put("/os-quota-sets/p1", json={"quota_set": {"instances": 1}},
                                headers=ALICE), 403, "forbidden") == (
        "Policy doesn't allow os_compute_api:os-quota-sets:update to be performed.")
    assert cloud.api.get("/os-quota-sets/p2", headers=ALICE).status_code == 403
    assert cloud.api.get("/os-quota-sets/p2/defaults", headers=ALICE).status_code == 200
    assert cloud.api.delete("/os-quota-sets/p1", headers=ALICE).status_code == 403
    assert cloud.api.get("/os-quota-class-sets/default", headers=ALICE).status_code == 403


@pytest.mark.parametrize("version,package", [("2.1", "v2_1"), ("2.50", "v2_50"),
                                             ("2.57", "v2_57")])
def test_quota_classes(cloud, version, package):
    shown = check(cloud.api.get("/os-quota-class-sets/default", headers=_h(version)),
                  package, "quota_classes", "get_quota_class_set")["quota_class_set"]
    assert (shown["id"], shown["instances"]) == ("default", 10)
    assert ("server_groups" in shown) == (version != "2.1")
    updated = check(cloud.api.put("/os-quota-class-sets/default", headers=_h(version),
                                  json={"quota_class_set": {"instances": 5}}),
                    package, "quota_classes", "update_quota_class_set")["quota_class_set"]
    assert updated["instances"] == 5
    assert cloud.api.get("/os-quota-sets/p9").json()["quota_set"]["instances"] == 5
    assert cloud.api.get("/os-quota-sets/p9/defaults").json()["quota_set"]["instances"] == 5
    if version == "2.1":
        assert "server_groups" in _fault(cloud.api.put(
            "/os-quota-class-sets/default", json={"quota_class_set": {"server_groups": 1}}),
            400)
