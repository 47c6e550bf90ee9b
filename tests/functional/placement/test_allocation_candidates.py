"""GET /allocation_candidates over HTTP, per microversion, and claiming what it offers."""

from __future__ import annotations

import uuid

import pytest

from tests.functional.placement.conftest import error_of

COMPUTE = {"VCPU": 8, "MEMORY_MB": 4096, "DISK_GB": 100}
QUERY = "resources=VCPU:1,MEMORY_MB:256,DISK_GB:10"


def generation(api, rp) -> int:
    return api.get(f"/resource_providers/{rp['uuid']}").json()["generation"]


def add_trait(api, rp, trait: str) -> None:
    assert api.put(f"/traits/{trait}").status_code in (201, 204)
    response = api.put(f"/resource_providers/{rp['uuid']}/traits", json={
        "traits": [trait], "resource_provider_generation": generation(api, rp)})
    assert response.status_code == 200, response.text


@pytest.fixture
def cloud(api):
    cn1, cn2 = api.provider("cn1"), api.provider("cn2")
    api.inventory(cn1, **COMPUTE)
    api.inventory(cn2, **COMPUTE)
    add_trait(api, cn2, "CUSTOM_GOLD")
    agg = str(uuid.uuid4())
    response = api.put(f"/resource_providers/{cn1['uuid']}/aggregates", json={
        "aggregates": [agg], "resource_provider_generation": generation(api, cn1)})
    assert response.status_code == 200, response.text
    return {"cn1": cn1["uuid"], "cn2": cn2["uuid"], "agg": agg}


def test_candidates_and_summaries_at_latest(api, cloud):
    response = api.get(f"/allocation_candidates?{QUERY}")
    assert response.status_code == 200, response.text
    assert response.headers["cache-control"] == "no-cache"
    assert "last-modified" in response.headers
    body = response.json()
    assert body["allocation_requests"] == [
        {"allocations": {u: {"resources": {"VCPU": 1, "MEMORY_MB": 256, "DISK_GB": 10}}},
         "mappings": {"": [u]}} for u in (cloud["cn1"], cloud["cn2"])]
    assert body["provider_summaries"][cloud["cn2"]] == {
        "resources": {rc: {"capacity": total, "used": 0} for rc, total in COMPUTE.items()},
        "traits": ["CUSTOM_GOLD"], "parent_provider_uuid": None,
        "root_provider_uuid": cloud["cn2"]}


def test_filters_over_http(api, cloud):
    def found(qs: str) -> set[str]:
        response = api.get(f"/allocation_candidates?{QUERY}&{qs}")
        assert response.status_code == 200, response.text
        return set(response.json()["provider_summaries"])

    assert found("required=CUSTOM_GOLD") == {cloud["cn2"]}
    assert found(f"member_of={cloud['agg']}") == {cloud["cn1"]}
    assert found("limit=1") == {cloud["cn1"]}
    assert found(f"in_tree={cloud['cn2']}") == {cloud["cn2"]}


def test_old_microversions_shape_the_body(api, cloud):
    response = api.at("1.10").get(f"/allocation_candidates?{QUERY}")
    assert response.status_code == 200, response.text
    first = response.json()["allocation_requests"][0]
    assert first == {"allocations": [{"resource_provider": {"uuid": cloud["cn1"]},
                                      "resources": {"VCPU": 1, "MEMORY_MB": 256,
                                                    "DISK_GB": 10}}]}
    assert "cache-control" not in response.headers
    assert api.at("1.9").get(f"/allocation_candidates?{QUERY}").status_code == 404


def test_a_claimed_candidate_shows_as_used(api, cloud):
    body = api.get(f"/allocation_candidates?{QUERY}&limit=1").json()
    chosen = body["allocation_requests"][0]
    response = api.put(f"/allocations/{uuid.uuid4()}", json={
        **chosen, "project_id": "p", "user_id": "u", "consumer_generation": None,
        "consumer_type": "INSTANCE"})
    assert response.status_code == 204, response.text
    summary = api.get(f"/allocation_candidates?{QUERY}").json()["provider_summaries"]
    assert summary[cloud["cn1"]]["resources"]["VCPU"] == {"capacity": 8, "used": 1}


@pytest.mark.parametrize("qs, version, status, code, text", [
    ("resources=VCPU:1,FOO:1", "latest", 400, "placement.undefined_code",
     "Invalid resource class in resources parameter: No such resource class FOO."),
    ("resources=VCPU:1&required=CUSTOM_NOPE", "latest", 400, "placement.undefined_code",
     "No such trait(s): CUSTOM_NOPE."),
    ("resources1=VCPU:1&resources2=MEMORY_MB:1", "latest", 400, "placement.undefined_code",
     'The "group_policy" parameter is required when specifying more than one'),
    ("resources=VCPU:1&root_required=A&root_required=B", "latest", 400,
     "placement.query.duplicate_key", "'root_required' may be specified only once"),
    ("resources=VCPU:1&same_subtree=,_A", "latest", 400, "placement.query.bad_value",
     "Empty string (unsuffixed group) can not be specified"),
    ("required_A=CUSTOM_X", "latest", 400, "placement.query.missing_value",
     "There must be at least one resources or resources[$S] parameter."),
    ("resources=VCPU:0", "latest", 400, "placement.undefined_code",
     "Requested resource VCPU requires amount >= 1. Got: 0."),
    ("resources=VCPU:1&limit=0", "latest", 400, "placement.undefined_code",
     "Invalid query string parameters"),
    ("resources=VCPU:1&required=in:A,B", "1.38", 400, "placement.undefined_code",
     "only supported since microversion 1.39"),
    ("resources1=VCPU:1", "1.24", 400, "placement.undefined_code",
     "Invalid query string parameters"),
    ("resources=VCPU:1&member_of=!" + str(uuid.UUID(int=1)), "1.31", 400,
     "placement.undefined_code",
     "Forbidden member_of parameters are not supported"),
])
def test_bad_requests_answer_upstreams_errors(api, cloud, qs, version, status, code, text):
    response = api.at(version).get(f"/allocation_candidates?{qs}")
    assert response.status_code == status, response.text
    error = error_of(response)
    assert text in error["detail"]
    assert error.get("code") == code
