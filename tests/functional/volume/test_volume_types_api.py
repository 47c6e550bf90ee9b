"""/types over real HTTP: the `__DEFAULT__` type, the admin's types and extra specs, and
what a project member may not do."""

from __future__ import annotations

import httpx
import pytest

from novalite.identity import bootstrap


@pytest.fixture
def admin(cloud):
    return httpx.Client(base_url=f"{cloud.base_url}/volume/v3", timeout=30)


@pytest.fixture
def member(cloud):
    demo = bootstrap.project_ids("demo")[0]
    return httpx.Client(base_url=f"{cloud.base_url}/volume/v3", timeout=30,
                        headers={"X-Auth-Token": f"demo:{demo}"})


def test_the_default_type_and_an_admins_type_with_extra_specs(admin, member):
    listed = member.get("/types", params={"is_public": "none"})
    assert listed.status_code == 200, listed.text
    assert [t["name"] for t in listed.json()["volume_types"]] == ["__DEFAULT__"]
    default = member.get("/types/default").json()["volume_type"]
    assert default["name"] == "__DEFAULT__" and default["is_public"] is True

    created = admin.post("/types", json={"volume_type": {
        "name": "fast", "description": "SSD", "extra_specs": {"tier": "1"}}})
    assert created.status_code == 200, created.text
    fast = created.json()["volume_type"]
    assert fast["extra_specs"] == {"tier": "1"}
    path = f"/types/{fast['id']}/extra_specs"
    assert admin.post(path, json={"extra_specs": {"x": "y"}}).json() == {
        "extra_specs": {"x": "y"}}
    assert admin.get(path).json()["extra_specs"] == {"tier": "1", "x": "y"}
    assert admin.put(f"{path}/x", json={"x": "z"}).json() == {"x": "z"}
    assert admin.get(f"{path}/x").json() == {"x": "z"}
    assert admin.delete(f"{path}/x").status_code == 202
    assert admin.get(f"{path}/x").status_code == 404
    assert admin.put(f"/types/{fast['id']}", json={"volume_type": {
        "description": "NVMe"}}).json()["volume_type"]["description"] == "NVMe"
    assert {t["name"] for t in member.get("/types").json()["volume_types"]} == {
        "__DEFAULT__", "fast"}

    volume = member.post("/volumes", json={"volume": {"size": 1, "volume_type": "fast"}})
    assert volume.json()["volume"]["volume_type"] == "fast"
    in_use = admin.delete(f"/types/{fast['id']}")
    assert in_use.status_code == 400, in_use.text
    assert "deletion is not allowed with volumes present" in in_use.json()[
        "badRequest"]["message"]


def test_errors(admin, member):
    refused = member.post("/types", json={"volume_type": {"name": "mine"}})
    assert refused.status_code == 403
    assert refused.json()["forbidden"]["message"] == (
        "Policy doesn't allow volume_extension:types_manage to be performed.")
    assert admin.post("/types", json={"volume_type": {"name": "__DEFAULT__"}}).json() == {
        "conflictingRequest": {"code": 409,
                               "message": "Volume Type __DEFAULT__ already exists."}}
    private = admin.post("/types", json={"volume_type": {
        "name": "p", "os-volume-type-access:is_public": False}})
    assert private.status_code == 400
    assert admin.get("/types/nope").json()["itemNotFound"]["message"] == (
        "Volume type nope could not be found.")
    default_id = admin.get("/types/default").json()["volume_type"]["id"]
    assert admin.delete(f"/types/{default_id}").status_code == 400
