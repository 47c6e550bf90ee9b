"""/os-quota-sets and /limits over real HTTP: defaults, usage, the admin's update and
reset, and Cinder's 413s when a create would go over a limit."""

from __future__ import annotations

import httpx
import pytest

from novalite.identity import bootstrap


@pytest.fixture
def demo(cloud):
    return bootstrap.project_ids("demo")[0]


@pytest.fixture
def member(cloud, demo):
    return httpx.Client(base_url=f"{cloud.base_url}/volume/v3/{demo}", timeout=30,
                        headers={"X-Auth-Token": f"demo:{demo}"})


@pytest.fixture
def admin(cloud):
    return httpx.Client(base_url=f"{cloud.base_url}/volume/v3", timeout=30)


def test_usage_limits_and_enforcement(cloud, member, admin, demo):
    assert member.get(f"/os-quota-sets/{demo}/defaults").json() == {"quota_set": {
        "id": demo, "volumes": 10, "snapshots": 10, "gigabytes": 1000}}
    assert member.post("/volumes", json={"volume": {"size": 2}}).status_code == 202
    cloud.settle()
    usage = member.get(f"/os-quota-sets/{demo}", params={"usage": "True"}).json()
    assert usage["quota_set"]["gigabytes"] == {"limit": 1000, "in_use": 2, "reserved": 0}
    assert usage["quota_set"]["volumes"]["in_use"] == 1
    absolute = member.get("/limits").json()["limits"]["absolute"]
    assert (absolute["maxTotalVolumes"], absolute["totalVolumesUsed"],
            absolute["totalGigabytesUsed"]) == (10, 1, 2)

    refused = member.put(f"/os-quota-sets/{demo}", json={"quota_set": {"volumes": 5}})
    assert refused.status_code == 403
    updated = admin.put(f"/os-quota-sets/{demo}", json={"quota_set": {"gigabytes": 3,
                                                                       "volumes": 2}})
    assert updated.json()["quota_set"] == {"volumes": 2, "snapshots": 10, "gigabytes": 3}
    too_big = member.post("/volumes", json={"volume": {"size": 2}})
    assert too_big.status_code == 413
    assert too_big.json()["overLimit"]["message"] == (
        "Requested volume or snapshot exceeds allowed gigabytes quota. Requested 2G, quota "
        "is 3G and 2G has been consumed.")
    assert member.post("/volumes", json={"volume": {"size": 1}}).status_code == 202
    admin.put(f"/os-quota-sets/{demo}", json={"quota_set": {"gigabytes": -1}})
    too_many = member.post("/volumes", json={"volume": {"size": 1}})
    assert too_many.json()["overLimit"]["message"] == (
        "Maximum number of volumes allowed (2) exceeded for quota 'volumes'.")
    below_usage = admin.put(f"/os-quota-sets/{demo}", json={"quota_set": {"volumes": 1}})
    assert below_usage.status_code == 400
    assert "Current usage is 2" in below_usage.json()["badRequest"]["message"]
    bad = admin.put(f"/os-quota-sets/{demo}", json={"quota_set": {"backups": 1}})
    assert "backups" in bad.json()["badRequest"]["message"]
    assert admin.delete(f"/os-quota-sets/{demo}").status_code == 200
    assert admin.get(f"/os-quota-sets/{demo}").json()["quota_set"]["volumes"] == 10
    cloud.settle()
