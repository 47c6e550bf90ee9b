"""/allocations: both body forms, project/user (1.8), POST (1.13), consumer generations
(1.28), consumer types (1.38), capacity and unit rules, usages."""

from __future__ import annotations

import uuid

from tests.functional.placement.conftest import error_of


def _new() -> str:
    return str(uuid.uuid4())


def test_list_form_before_1_12_and_dict_form_after(api):
    rp = api.provider()
    api.inventory(rp, VCPU=8, MEMORY_MB=1024)
    consumer = _new()
    body = {"allocations": [{"resource_provider": {"uuid": rp["uuid"]},
                             "resources": {"VCPU": 1, "MEMORY_MB": 64}}]}
    assert api.at("1.0").put(f"/allocations/{consumer}", json=body).status_code == 204
    assert api.at("1.8").put(f"/allocations/{consumer}", json=body).status_code == 400
    body |= {"project_id": "p", "user_id": "u"}
    assert api.at("1.8").put(f"/allocations/{consumer}", json=body).status_code == 204
    assert api.at("1.12").put(f"/allocations/{consumer}", json=body).status_code == 400
    shown = api.at("1.11").get(f"/allocations/{consumer}").json()
    assert shown == {"allocations": {rp["uuid"]: {
        "generation": 3, "resources": {"VCPU": 1, "MEMORY_MB": 64}}}}
    shown = api.at("1.12").get(f"/allocations/{consumer}").json()
    assert shown["project_id"] == "p" and shown["user_id"] == "u"
    assert "consumer_generation" not in shown


def test_consumer_generations_from_1_28(api):
    rp = api.provider()
    api.inventory(rp, VCPU=8)
    consumer = _new()
    stale = api.claim(consumer, {rp["uuid"]: {"VCPU": 1}}, generation=3)
    assert stale.status_code == 409
    assert "expected null but got 3" in error_of(stale)["detail"]
    assert error_of(stale)["code"] == "placement.concurrent_update"
    assert api.claim(consumer, {rp["uuid"]: {"VCPU": 1}}).status_code == 204
    shown = api.get(f"/allocations/{consumer}").json()
    assert shown["consumer_generation"] == 1 and shown["consumer_type"] == "INSTANCE"
    again = api.claim(consumer, {rp["uuid"]: {"VCPU": 2}})
    assert again.status_code == 409
    assert "consumer generation conflict - expected 1 but got null" in error_of(
        again)["detail"]
    assert api.claim(consumer, {rp["uuid"]: {"VCPU": 2}}, generation=1).status_code == 204
    assert api.get(f"/allocations/{consumer}").json()["consumer_generation"] == 2
    assert api.at("1.27").put(f"/allocations/{consumer}", json={
        "allocations": {}, "project_id": "p", "user_id": "u"}).status_code == 400
    emptied = api.claim(consumer, {}, generation=2)
    assert emptied.status_code == 204
    assert api.get(f"/allocations/{consumer}").json() == {"allocations": {}}


def test_consumer_type_required_from_1_38(api):
    rp = api.provider()
    api.inventory(rp, VCPU=8)
    body = {"allocations": {rp["uuid"]: {"resources": {"VCPU": 1}}}, "project_id": "p",
            "user_id": "u", "consumer_generation": None}
    assert api.put(f"/allocations/{_new()}", json=body).status_code == 400
    legacy = _new()
    assert api.at("1.37").put(f"/allocations/{legacy}", json=body).status_code == 204
    assert api.get(f"/allocations/{legacy}").json()["consumer_type"] == "unknown"
    assert "consumer_type" not in api.at("1.37").get(f"/allocations/{legacy}").json()


def test_mappings_accepted_from_1_34(api):
    rp = api.provider()
    api.inventory(rp, VCPU=8)
    mappings = {"mappings": {"_A": [rp["uuid"]]}}
    assert api.at("1.33").put(f"/allocations/{_new()}", json={
        "allocations": {rp["uuid"]: {"resources": {"VCPU": 1}}}, "project_id": "p",
        "user_id": "u", "consumer_generation": None, **mappings}).status_code == 400
    assert api.claim(_new(), {rp["uuid"]: {"VCPU": 1}}, **mappings).status_code == 204


def test_capacity_and_unit_rules(api):
    rp = api.provider()
    api.inventory(rp, VCPU={"total": 10, "reserved": 2, "allocation_ratio": 1.5,
                            "max_unit": 8, "step_size": 2})
    assert api.claim(_new(), {rp["uuid"]: {"VCPU": 8}}).status_code == 204
    over = api.claim(_new(), {rp["uuid"]: {"VCPU": 6}})
    assert over.status_code == 409
    assert "would exceed the capacity" in error_of(over)["detail"]
    odd = api.claim(_new(), {rp["uuid"]: {"VCPU": 3}})
    assert "would violate inventory constraints" in error_of(odd)["detail"]
    assert api.claim(_new(), {rp["uuid"]: {"VCPU": 4}}).status_code == 204
    missing_class = api.claim(_new(), {rp["uuid"]: {"DISK_GB": 1}})
    assert missing_class.status_code == 409
    unknown_rp = api.claim(_new(), {_new(): {"VCPU": 1}})
    assert unknown_rp.status_code == 400
    assert "that does not exist" in error_of(unknown_rp)["detail"]
    unknown_class = api.claim(_new(), {rp["uuid"]: {"CUSTOM_NOPE": 1}})
    assert unknown_class.status_code == 400


def test_claims_are_all_or_nothing(api):
    big, small = api.provider("big"), api.provider("small")
    api.inventory(big, VCPU=100)
    api.inventory(small, MEMORY_MB=10)
    consumer = _new()
    response = api.claim(consumer, {big["uuid"]: {"VCPU": 1}, small["uuid"]: {"MEMORY_MB": 11}})
    assert response.status_code == 409
    assert api.get(f"/resource_providers/{big['uuid']}/usages").json()["usages"] == {
        "VCPU": 0}
    assert api.get(f"/allocations/{consumer}").json() == {"allocations": {}}


def test_post_allocations_many_consumers(api):
    rp = api.provider()
    api.inventory(rp, VCPU=4)
    first, second = _new(), _new()
    entry = {"allocations": {rp["uuid"]: {"resources": {"VCPU": 2}}}, "project_id": "p",
             "user_id": "u", "consumer_generation": None, "consumer_type": "INSTANCE"}
    assert api.at("1.12").post("/allocations", json={first: entry}).status_code == 404
    assert api.post("/allocations", json={first: entry, second: entry}).status_code == 204
    too_much = api.post("/allocations", json={_new(): entry})
    assert too_much.status_code == 409
    move = {first: {**entry, "allocations": {}, "consumer_generation": 1},
            second: {**entry, "consumer_generation": 1,
                     "allocations": {rp["uuid"]: {"resources": {"VCPU": 4}}}}}
    assert api.post("/allocations", json=move).status_code == 204
    usages = api.get(f"/resource_providers/{rp['uuid']}/allocations").json()
    assert usages["allocations"] == {second: {"resources": {"VCPU": 4}}}


def test_delete_allocations(api):
    rp = api.provider()
    api.inventory(rp, VCPU=4)
    consumer = _new()
    api.claim(consumer, {rp["uuid"]: {"VCPU": 2}})
    generation = api.get(f"/resource_providers/{rp['uuid']}").json()["generation"]
    assert api.delete(f"/allocations/{consumer}").status_code == 204
    assert api.get(f"/resource_providers/{rp['uuid']}").json()["generation"] == generation + 1
    response = api.delete(f"/allocations/{consumer}")
    assert response.status_code == 404
    assert "No allocations for consumer" in error_of(response)["detail"]
    assert api.put("/allocations/not-a-uuid", json={}).status_code == 400


def test_usages(api):
    rp = api.provider()
    api.inventory(rp, VCPU=8, MEMORY_MB=1024)
    api.claim(_new(), {rp["uuid"]: {"VCPU": 1, "MEMORY_MB": 64}})
    api.claim(_new(), {rp["uuid"]: {"VCPU": 2}}, consumer_type="MIGRATION")
    assert api.get(f"/resource_providers/{rp['uuid']}/usages").json() == {
        "resource_provider_generation": 3, "usages": {"VCPU": 3, "MEMORY_MB": 64}}
    assert api.at("1.8").get("/usages?project_id=p").status_code == 404
    assert api.at("1.9").get("/usages?project_id=p").json() == {
        "usages": {"VCPU": 3, "MEMORY_MB": 64}}
    assert api.at("1.9").get("/usages?project_id=p&user_id=x").json() == {"usages": {}}
    assert api.at("1.9").get("/usages").status_code == 400
    assert api.get("/usages?project_id=p").json() == {"usages": {
        "INSTANCE": {"VCPU": 1, "MEMORY_MB": 64, "consumer_count": 1},
        "MIGRATION": {"VCPU": 2, "consumer_count": 1}}}
    assert api.get("/usages?project_id=p&consumer_type=all").json() == {"usages": {
        "all": {"VCPU": 3, "MEMORY_MB": 64, "consumer_count": 2}}}
    assert api.get("/usages?project_id=p&consumer_type=MIGRATION").json() == {"usages": {
        "MIGRATION": {"VCPU": 2, "consumer_count": 1}}}
    assert api.get("/usages?project_id=p&consumer_type=unknown").json() == {"usages": {}}
