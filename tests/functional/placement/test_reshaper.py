"""POST /reshaper (1.30): inventory and allocations move together, or not at all."""

from __future__ import annotations

import uuid

from tests.functional.placement.conftest import error_of


def test_move_vgpu_to_a_child(api):
    root = api.provider("cn")
    api.inventory(root, VCPU=8, VGPU=4)
    consumer = str(uuid.uuid4())
    assert api.claim(consumer, {root["uuid"]: {"VCPU": 1, "VGPU": 2}}).status_code == 204
    child = api.provider("gpu", parent_provider_uuid=root["uuid"])
    body = {
        "inventories": {
            root["uuid"]: {"resource_provider_generation": 2,
                           "inventories": {"VCPU": {"total": 8}}},
            child["uuid"]: {"resource_provider_generation": 0,
                            "inventories": {"VGPU": {"total": 4}}},
        },
        "allocations": {consumer: {
            "allocations": {root["uuid"]: {"resources": {"VCPU": 1}},
                            child["uuid"]: {"resources": {"VGPU": 2}}},
            "project_id": "p", "user_id": "u", "consumer_generation": 1,
            "consumer_type": "INSTANCE"}},
    }
    assert api.at("1.29").post("/reshaper", json=body).status_code == 404
    response = api.post("/reshaper", json=body)
    assert response.status_code == 204, response.text
    assert api.get(f"/resource_providers/{child['uuid']}/usages").json()["usages"] == {
        "VGPU": 2}
    assert list(api.get(f"/resource_providers/{root['uuid']}/inventories")
                .json()["inventories"]) == ["VCPU"]
    stale = api.post("/reshaper", json=body)
    assert stale.status_code == 409
    assert error_of(stale)["code"] == "placement.concurrent_update"


def test_unknown_provider_is_400(api):
    body = {"inventories": {str(uuid.uuid4()): {"resource_provider_generation": 0,
                                                "inventories": {}}},
            "allocations": {}}
    response = api.post("/reshaper", json=body)
    assert response.status_code == 400
    assert error_of(response)["code"] == "placement.resource_provider.not_found"
