"""Placement's HTTP basics: version document, negotiation, error body, routing, policy."""

from __future__ import annotations

import httpx

from tests.functional.placement.conftest import error_of

VERSIONS = {"versions": [{"id": "v1.0", "min_version": "1.0", "max_version": "1.39",
                          "status": "CURRENT", "links": [{"rel": "self", "href": ""}]}]}


def test_root_needs_no_auth_and_answers_the_version_document(server_url):
    response = httpx.get(f"{server_url}/placement/", headers={"X-Auth-Token": "bob:p"})
    assert response.status_code == 200
    assert response.json() == VERSIONS
    assert response.headers["openstack-api-version"] == "placement 1.0"
    assert "openstack-api-version" in response.headers["vary"]


def test_latest_is_1_39(api):
    assert api.get("/").headers["openstack-api-version"] == "placement 1.39"


def test_unacceptable_and_malformed_versions(api):
    response = api.at("0.5").get("/")
    assert response.status_code == 406
    assert error_of(response)["title"] == "Not Acceptable"
    assert "Unacceptable version header: 0.5" in error_of(response)["detail"]
    response = api.at("pony.horse").get("/")
    assert response.status_code == 400
    assert "invalid version string: pony.horse" in error_of(response)["detail"]
    assert api.at("1.40").get("/").status_code == 406


def test_unknown_url_is_404_json(api):
    response = api.get("/no/such/thing")
    assert response.status_code == 404
    assert error_of(response)["title"] == "Not Found"


def test_wrong_method_is_405_with_allow(api):
    response = api.delete("/resource_providers")
    assert response.status_code == 405
    assert set(response.headers["allow"].split(", ")) == {"GET", "POST"}
    assert response.headers["openstack-api-version"] == "placement 1.39"
    assert error_of(response)["status"] == 405


def test_error_code_appears_from_1_23(api):
    missing = "/resource_providers/7a1c2a0e-0f4e-4f4c-9a43-8f6cfa0d8a44"
    assert "code" not in error_of(api.at("1.22").get(missing))
    error = error_of(api.at("1.23").get(missing))
    assert error["code"] == "placement.undefined_code"
    assert error["status"] == 404 and error["request_id"].startswith("req-")
    assert "No resource provider with uuid" in error["detail"]


def test_placement_is_admin_only(api, server_url):
    with httpx.Client(base_url=f"{server_url}/placement",
                      headers={"X-Auth-Token": "bob:project"}) as user:
        response = user.get("/resource_providers")
    assert response.status_code == 403
    assert "placement:resource_providers:list" in error_of(response)["detail"]


def test_cache_headers_from_1_15(api):
    assert "last-modified" not in api.at("1.14").get("/resource_providers").headers
    headers = api.at("1.15").get("/resource_providers").headers
    assert headers["cache-control"] == "no-cache"
    assert headers["last-modified"].endswith("GMT")


def test_bad_json_body_is_a_400(api):
    response = api.post("/resource_providers", json={"name": 5})
    assert response.status_code == 400
    assert "JSON does not validate" in error_of(response)["detail"]


def test_root_without_trailing_slash(server_url):
    response = httpx.get(f"{server_url}/placement")
    assert response.status_code == 200 and response.json() == VERSIONS
