"""/limits through real HTTP, and the instance quota a boot is held to."""

import importlib

import pytest
from tempest.lib.common import jsonschema_validator

from novalite.image import db as images

MV = "X-OpenStack-Nova-API-Version"
SCHEMAS = {"2.1": "v2_1", "2.36": "v2_36", "2.39": "v2_39", "2.57": "v2_57", "2.74": "v2_57"}


def _limits(cloud, version="2.1", token=None, query=""):
    headers = {MV: version, **({"X-Auth-Token": token} if token else {})}
    return cloud.api.get(f"/limits{query}", headers=headers)


def _boot(cloud, token, flavor="1", **server):
    body = {"server": {"name": "vm", "flavorRef": flavor,
                       "imageRef": images.DEFAULT_IMAGE_ID, **server}}
    return cloud.api.post("/servers", json=body, headers={"X-Auth-Token": token})


@pytest.mark.parametrize("version", sorted(SCHEMAS))
def test_limits_match_tempests_schema(cloud, version):
    response = _limits(cloud, version, query="?reserved=False")
    assert response.status_code == 200
    schema = importlib.import_module(
        f"tempest.lib.api_schema.response.compute.{SCHEMAS[version]}.limits").get_limit
    jsonschema_validator.JSONSCHEMA_VALIDATOR(
        schema["response_body"], format_checker=jsonschema_validator.FORMAT_CHECKER
    ).validate(response.json())
    absolute = response.json()["limits"]["absolute"]
    assert (absolute["maxTotalInstances"], absolute["maxTotalCores"],
            absolute["maxTotalRAMSize"], absolute["maxTotalKeypairs"]) == (-1, -1, -1, 100)
    assert (absolute["maxServerMeta"], absolute["maxServerGroups"]) == (128, 10)
    assert ("maxImageMeta" in absolute) == (version < "2.39")
    assert ("maxPersonality" in absolute) == (version != "2.74" and version < "2.57")


def test_usage_counts_the_projects_servers(cloud):
    cloud.boot()  # the admin project's; not counted for alice
    alice = _boot(cloud, "alice:p1")
    assert alice.status_code == 202
    cloud.wait_status(alice.json()["server"]["id"], "ACTIVE")
    absolute = _limits(cloud, token="alice:p1").json()["limits"]["absolute"]
    flavor = cloud.api.get("/flavors/1").json()["flavor"]
    assert (absolute["totalInstancesUsed"], absolute["totalCoresUsed"],
            absolute["totalRAMUsed"]) == (1, flavor["vcpus"], flavor["ram"])
    assert (absolute["totalFloatingIpsUsed"], absolute["maxSecurityGroups"]) == (0, -1)
    admin_view = _limits(cloud, query="?tenant_id=p1").json()["limits"]["absolute"]
    assert admin_view["totalInstancesUsed"] == 1
    refused = _limits(cloud, token="alice:p1", query="?tenant_id=admin")
    assert refused.status_code == 403


def test_boots_beyond_the_instance_quota_are_refused(conf, cloud):
    conf.set_override("instances", 2, group="quota")
    assert _boot(cloud, "alice:p1").status_code == 202
    # a multi-create gets what still fits when its min_count allows
    assert _boot(cloud, "alice:p1", min_count=1, max_count=3).status_code == 202
    assert _limits(cloud, token="alice:p1").json()["limits"]["absolute"][
        "totalInstancesUsed"] == 2
    over = _boot(cloud, "alice:p1")
    assert (over.status_code, over.json()["forbidden"]["message"]) == (
        403, "Quota exceeded for instances: Requested 1, but already used 2 of 2 instances")
    assert _boot(cloud, "bob:p2").status_code == 202  # another project's quota


def test_cores_and_ram_quotas_name_every_limit_exceeded(conf, cloud):
    flavor = cloud.api.get("/flavors/1").json()["flavor"]
    conf.set_override("cores", flavor["vcpus"], group="quota")
    conf.set_override("ram", flavor["ram"], group="quota")
    assert _boot(cloud, "alice:p1").status_code == 202
    over = _boot(cloud, "alice:p1", min_count=2, max_count=2)
    assert over.status_code == 403
    assert over.json()["forbidden"]["message"] == (
        f"Quota exceeded for cores, ram: Requested {2 * flavor['vcpus']}, "
        f"{2 * flavor['ram']}, but already used {flavor['vcpus']}, {flavor['ram']} of "
        f"{flavor['vcpus']}, {flavor['ram']} cores, ram")


def test_metadata_items_quota(conf, cloud):
    conf.set_override("metadata_items", 1, group="quota")
    over = _boot(cloud, "alice:p1", metadata={"a": "1", "b": "2"})
    assert (over.status_code, over.json()["forbidden"]["message"]) == (
        403, "Maximum number of metadata items exceeds 1")
