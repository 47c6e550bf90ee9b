"""What any HTTP client sees: discovery, headers, flavors, and faults for bad input."""

from __future__ import annotations

import httpx
import pytest

from novalite.image import db as images


def test_version_documents_without_a_token(cloud):
    root = httpx.get(f"{cloud.base_url}/compute/")
    assert root.status_code == 200
    versions = root.json()["versions"]
    assert [v["id"] for v in versions] == ["v2.0", "v2.1"]
    assert versions[1]["min_version"] == "2.1"
    for doc in versions:
        self_href = doc["links"][0]["href"]
        shown = httpx.get(self_href).json()["version"]
        assert shown["links"][0]["href"] == self_href and shown["id"] == doc["id"]
    v21 = httpx.get(f"{cloud.base_url}/compute/v2.1").json()["version"]
    assert v21["version"] == versions[1]["version"]


def test_every_response_has_request_id_and_version_headers(cloud):
    response = cloud.api.get("/flavors", headers={"X-OpenStack-Nova-API-Version": "2.1"})
    assert response.headers["x-openstack-request-id"].startswith("req-")
    assert response.headers["x-compute-request-id"] == response.headers["x-openstack-request-id"]
    assert response.headers["X-OpenStack-Nova-API-Version"] == "2.1"
    assert response.headers["OpenStack-API-Version"] == "compute 2.1"


def test_unsupported_microversion_is_406(cloud):
    response = cloud.api.get("/servers", headers={"OpenStack-API-Version": "compute 2.999"})
    assert response.status_code == 406
    assert "is not supported by the API" in response.json()["computeFault"]["message"]


def test_standard_flavors_are_seeded(cloud):
    flavors = cloud.api.get("/flavors/detail").json()["flavors"]
    by_name = {f["name"]: (f["id"], f["vcpus"], f["ram"], f["disk"]) for f in flavors}
    assert by_name == {"m1.tiny": ("1", 1, 512, 1), "m1.small": ("2", 1, 2048, 20),
                       "m1.medium": ("3", 2, 4096, 40), "m1.large": ("4", 4, 8192, 80),
                       "m1.xlarge": ("5", 8, 16384, 160), "m1.nano": ("42", 1, 128, 1),
                       "m1.micro": ("84", 1, 192, 1)}
    assert cloud.api.get("/flavors/3").json()["flavor"]["name"] == "m1.medium"


@pytest.mark.parametrize(("body", "message"), [
    ({"server": {"name": "x", "flavorRef": "99", "imageRef": images.DEFAULT_IMAGE_ID}},
     "Flavor '99' could not be found."),
    ({"server": {"name": "x", "flavorRef": "1", "imageRef": "no-such-image"}},
     "Image no-such-image could not be found."),
    ({"server": {"flavorRef": "1", "imageRef": images.DEFAULT_IMAGE_ID}},
     "'name' is a required property"),
    ({"server": {"name": "x", "flavorRef": "1", "imageRef": images.DEFAULT_IMAGE_ID,
                 "bogus": 1}}, "Additional properties are not allowed"),
    ({"server": {"name": "x", "flavorRef": "1", "imageRef": images.DEFAULT_IMAGE_ID,
                 "min_count": 3, "max_count": 2}}, "min_count must be <= max_count"),
    ({"server": {"name": "x", "flavorRef": "1"}}, "Missing imageRef attribute"),
    ([1, 2], "[1, 2] is not of type 'object'"),
])
def test_bad_create_bodies_are_400_naming_the_problem(cloud, body, message):
    response = cloud.api.post("/servers", json=body)
    assert response.status_code == 400
    assert message in response.json()["badRequest"]["message"]


def test_create_answers_202_with_novas_fields(cloud):
    response = cloud.api.post("/servers", json={"server": {
        "name": "vm", "flavorRef": "1", "imageRef": images.DEFAULT_IMAGE_ID}})
    assert response.status_code == 202
    server = response.json()["server"]
    assert set(server) == {"id", "links", "OS-DCF:diskConfig", "security_groups", "adminPass"}
    assert len(server["adminPass"]) == 12
    assert server["links"][0]["href"].endswith(f"/compute/v2.1/servers/{server['id']}")


def test_malformed_json_is_400(cloud):
    response = cloud.api.post("/servers", content=b'{"server": ',
                              headers={"Content-Type": "application/json"})
    assert response.status_code == 400
    assert response.json() == {"badRequest": {"code": 400, "message": "Malformed request body"}}


def test_unknown_server_route_and_method_answer_in_nova_fault_format(cloud):
    missing = cloud.api.get("/servers/3f6c9a1e-0000-4000-8000-000000000000")
    assert missing.status_code == 404
    assert "could not be found" in missing.json()["itemNotFound"]["message"]
    assert cloud.api.delete("/servers/nope").json()["itemNotFound"]["code"] == 404
    assert cloud.api.get("/no-such-thing").json()["itemNotFound"]["code"] == 404
    assert cloud.api.put("/flavors").json()["badMethod"]["code"] == 405


def test_projects_see_only_their_own_servers(cloud):
    server_id = cloud.boot()
    other = {"X-Auth-Token": "alice:project-b"}
    assert cloud.api.get(f"/servers/{server_id}", headers=other).status_code == 404
    assert cloud.api.get("/servers", headers=other).json() == {"servers": []}
    assert cloud.api.delete(f"/servers/{server_id}", headers=other).status_code == 404
