"""/resource_providers: CRUD, nested trees, filters and re-parenting."""

from __future__ import annotations

import uuid

from tests.functional.placement.conftest import error_of

AGG1, AGG2 = str(uuid.uuid4()), str(uuid.uuid4())


def test_create_before_and_after_1_20(api):
    response = api.at("1.19").post("/resource_providers", json={"name": "a"})
    assert response.status_code == 201 and response.content == b""
    assert response.headers["location"].endswith("/placement/resource_providers/"
                                                 + response.headers["location"][-36:])
    body = api.provider("b")
    assert body["generation"] == 0 and body["root_provider_uuid"] == body["uuid"]
    assert {link["rel"] for link in body["links"]} == {
        "self", "inventories", "usages", "aggregates", "traits", "allocations"}


def test_links_and_tree_fields_by_version(api):
    rp = api.provider()
    shown = api.at("1.0").get(f"/resource_providers/{rp['uuid']}").json()
    assert {link["rel"] for link in shown["links"]} == {"self", "inventories", "usages"}
    assert "root_provider_uuid" not in shown


def test_duplicate_name_or_uuid_is_409(api):
    rp = api.provider("dup")
    response = api.post("/resource_providers", json={"name": "dup"})
    assert response.status_code == 409
    assert error_of(response)["code"] == "placement.duplicate_name"
    response = api.post("/resource_providers", json={"name": "other", "uuid": rp["uuid"]})
    assert "Conflicting resource provider uuid" in error_of(response)["detail"]


def test_show_update_delete(api):
    rp = api.provider("old")
    path = f"/resource_providers/{rp['uuid']}"
    response = api.put(path, json={"name": "new"})
    assert response.status_code == 200 and response.json()["name"] == "new"
    assert api.get(path).json()["name"] == "new"
    assert api.delete(path).status_code == 204
    assert api.get(path).status_code == 404
    response = api.delete(path)
    assert "found for delete" in error_of(response)["detail"]


def test_nested_tree_and_in_tree(api):
    root = api.provider("root")
    child = api.provider("child", parent_provider_uuid=root["uuid"])
    grandchild = api.provider("grandchild", parent_provider_uuid=child["uuid"])
    api.provider("elsewhere")
    assert grandchild["root_provider_uuid"] == root["uuid"]
    assert grandchild["parent_provider_uuid"] == child["uuid"]
    names = {p["name"] for p in api.get(
        f"/resource_providers?in_tree={child['uuid']}").json()["resource_providers"]}
    assert names == {"root", "child", "grandchild"}
    response = api.delete(f"/resource_providers/{root['uuid']}")
    assert response.status_code == 409
    assert error_of(response)["code"] == "placement.resource_provider.cannot_delete_parent"
    response = api.post("/resource_providers",
                        json={"name": "x", "parent_provider_uuid": str(uuid.uuid4())})
    assert response.status_code == 400


def test_reparenting_needs_1_37(api):
    a, b = api.provider("a"), api.provider("b")
    child = api.provider("c", parent_provider_uuid=a["uuid"])
    path = f"/resource_providers/{child['uuid']}"
    moved = {"name": "c", "parent_provider_uuid": b["uuid"]}
    response = api.at("1.36").put(path, json=moved)
    assert response.status_code == 400
    assert "re-parenting a provider is not currently allowed" in error_of(response)["detail"]
    response = api.at("1.37").put(path, json=moved)
    assert response.json()["root_provider_uuid"] == b["uuid"]
    response = api.at("1.37").put(path, json={"name": "c", "parent_provider_uuid": None})
    assert response.json()["root_provider_uuid"] == child["uuid"]
    response = api.at("1.37").put(f"/resource_providers/{a['uuid']}",
                                  json={"name": "a", "parent_provider_uuid": a["uuid"]})
    assert "creating loop" in error_of(response)["detail"]
    adopt = api.at("1.14").put(path, json={"name": "c", "parent_provider_uuid": a["uuid"]})
    assert adopt.status_code == 200


def _names(api, query: str, version: str = "latest") -> set[str]:
    response = api.at(version).get(f"/resource_providers?{query}")
    assert response.status_code == 200, response.text
    return {p["name"] for p in response.json()["resource_providers"]}


def test_filters(api):
    one, two = api.provider("one"), api.provider("two")
    api.inventory(one, VCPU=4)
    api.inventory(two, VCPU={"total": 8, "max_unit": 2}, DISK_GB=100)
    gen = api.get(f"/resource_providers/{one['uuid']}").json()["generation"]
    api.put(f"/resource_providers/{one['uuid']}/aggregates",
            json={"aggregates": [AGG1], "resource_provider_generation": gen})
    gen = api.get(f"/resource_providers/{two['uuid']}").json()["generation"]
    api.put(f"/resource_providers/{two['uuid']}/traits",
            json={"traits": ["HW_CPU_X86_AVX"], "resource_provider_generation": gen})
    assert _names(api, "name=one") == {"one"}
    assert _names(api, f"uuid={two['uuid']}") == {"two"}
    assert _names(api, f"member_of={AGG1}") == {"one"}
    assert _names(api, f"member_of=in:{AGG1},{AGG2}") == {"one"}
    assert _names(api, f"member_of=!{AGG1}") == {"two"}
    assert _names(api, "resources=VCPU:3") == {"one"}
    assert _names(api, "resources=VCPU:2,DISK_GB:10") == {"two"}
    assert _names(api, "required=HW_CPU_X86_AVX") == {"two"}
    assert _names(api, "required=!HW_CPU_X86_AVX") == {"one"}
    assert _names(api, "required=in:HW_CPU_X86_AVX,HW_CPU_X86_SSE") == {"two"}
    response = api.get("/resource_providers?resources=CUSTOM_NOPE:1")
    assert "Invalid resource class in resources parameter" in error_of(response)["detail"]
    response = api.get("/resource_providers?required=CUSTOM_NOPE")
    assert 'Invalid trait(s) in "required" parameter' in error_of(response)["detail"]
    assert api.at("1.17").get("/resource_providers?required=X").status_code == 400
    assert api.at("1.23").get(f"/resource_providers?member_of={AGG1}&member_of={AGG2}"
                              ).status_code == 400
    assert _names(api, f"member_of={AGG1}&member_of={AGG2}") == set()
    assert api.get("/resource_providers?bogus=1").status_code == 400


def test_provider_with_allocations_cannot_be_deleted(api):
    rp = api.provider()
    api.inventory(rp, VCPU=2)
    assert api.claim(str(uuid.uuid4()), {rp["uuid"]: {"VCPU": 1}}).status_code == 204
    response = api.delete(f"/resource_providers/{rp['uuid']}")
    assert response.status_code == 409
    assert error_of(response)["code"] == "placement.resource_provider.inuse"
