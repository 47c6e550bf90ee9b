"""Resource classes (1.2/1.7), traits (1.6) and provider aggregates (1.1/1.19)."""

from __future__ import annotations

import uuid

from tests.functional.placement.conftest import error_of


def test_resource_classes(api):
    names = {c["name"] for c in api.get("/resource_classes").json()["resource_classes"]}
    assert {"VCPU", "MEMORY_MB", "DISK_GB"} <= names
    assert api.at("1.1").get("/resource_classes").status_code == 404
    response = api.post("/resource_classes", json={"name": "CUSTOM_GPU"})
    assert response.status_code == 201
    assert response.headers["location"].endswith("/resource_classes/CUSTOM_GPU")
    assert api.post("/resource_classes", json={"name": "CUSTOM_GPU"}).status_code == 409
    assert api.post("/resource_classes", json={"name": "GPU"}).status_code == 400
    assert api.get("/resource_classes/CUSTOM_GPU").json()["name"] == "CUSTOM_GPU"
    assert api.get("/resource_classes/CUSTOM_NO").status_code == 404
    assert api.delete("/resource_classes/VCPU").status_code == 400
    assert api.delete("/resource_classes/CUSTOM_GPU").status_code == 204


def test_resource_class_put_by_version(api):
    assert api.put("/resource_classes/CUSTOM_A").status_code == 201
    assert api.put("/resource_classes/CUSTOM_A").status_code == 204
    assert api.put("/resource_classes/VCPU").status_code == 400
    renamed = api.at("1.6").put("/resource_classes/CUSTOM_A", json={"name": "CUSTOM_B"})
    assert renamed.status_code == 200 and renamed.json()["name"] == "CUSTOM_B"


def test_class_in_use_cannot_be_deleted(api):
    api.put("/resource_classes/CUSTOM_X")
    rp = api.provider()
    api.inventory(rp, CUSTOM_X=1)
    response = api.delete("/resource_classes/CUSTOM_X")
    assert response.status_code == 409


def test_traits(api):
    assert api.at("1.5").get("/traits").status_code == 404
    assert api.put("/traits/CUSTOM_FAST").status_code == 201
    assert api.put("/traits/CUSTOM_FAST").status_code == 204
    assert api.put("/traits/FAST").status_code == 400
    assert api.get("/traits/CUSTOM_FAST").status_code == 204
    assert api.get("/traits/CUSTOM_SLOW").status_code == 404
    listed = api.get("/traits?name=in:CUSTOM_FAST,HW_CPU_X86_AVX").json()["traits"]
    assert listed == ["CUSTOM_FAST", "HW_CPU_X86_AVX"]
    assert api.get("/traits?name=startswith:CUSTOM_").json()["traits"] == ["CUSTOM_FAST"]
    assert api.get("/traits?name=CUSTOM_FAST").status_code == 400
    assert api.get("/traits?associated=maybe").status_code == 400
    assert api.delete("/traits/HW_CPU_X86_AVX").status_code == 400
    assert api.delete("/traits/CUSTOM_FAST").status_code == 204


def test_provider_traits(api):
    rp = api.provider()
    path = f"/resource_providers/{rp['uuid']}/traits"
    body = {"traits": ["HW_CPU_X86_AVX", "CUSTOM_T"], "resource_provider_generation": 0}
    api.put("/traits/CUSTOM_T")
    response = api.put(path, json=body)
    assert response.status_code == 200
    assert response.json() == {"traits": ["CUSTOM_T", "HW_CPU_X86_AVX"],
                               "resource_provider_generation": 1}
    stale = api.put(path, json=body)
    assert stale.status_code == 409
    assert error_of(stale)["code"] == "placement.concurrent_update"
    unknown = api.put(path, json={"traits": ["CUSTOM_NO"], "resource_provider_generation": 1})
    assert "No such trait CUSTOM_NO" in error_of(unknown)["detail"]
    assert api.get("/traits?associated=true").json()["traits"] == ["CUSTOM_T",
                                                                   "HW_CPU_X86_AVX"]
    assert api.delete("/traits/CUSTOM_T").status_code == 409
    assert api.delete(path).status_code == 204
    assert api.get(path).json() == {"traits": [], "resource_provider_generation": 2}


def test_aggregates_by_version(api):
    rp = api.provider()
    path = f"/resource_providers/{rp['uuid']}/aggregates"
    agg = str(uuid.uuid4())
    assert api.at("1.0").get(path).status_code == 404
    response = api.at("1.1").put(path, json=[agg])
    assert response.status_code == 200 and response.json() == {"aggregates": [agg]}
    shown = api.get(path).json()
    assert shown == {"aggregates": [agg], "resource_provider_generation": 1}
    stale = api.put(path, json={"aggregates": [], "resource_provider_generation": 0})
    assert stale.status_code == 409
    assert error_of(stale)["code"] == "placement.concurrent_update"
    response = api.put(path, json={"aggregates": [], "resource_provider_generation": 1})
    assert response.json() == {"aggregates": [], "resource_provider_generation": 2}
    assert api.at("1.19").put(path, json=[agg]).status_code == 400
