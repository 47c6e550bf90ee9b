"""Version discovery of the image API, without a token, where clients look for it."""

from __future__ import annotations

import httpx
import pytest


@pytest.mark.parametrize("path", ["/image", "/image/", "/image/v2", "/image/v2/"])
def test_roots_answer_300_with_v2_16_current(cloud, path):
    response = httpx.get(cloud.base_url + path)
    assert response.status_code == 300
    versions = response.json()["versions"]
    assert versions[0] == {"id": "v2.16", "status": "CURRENT", "links": [
        {"rel": "self", "href": f"{cloud.base_url}/image/v2/"}]}
    assert [v["id"] for v in versions[1:]] == [f"v2.{m}" for m in range(15, -1, -1)]
    assert {v["status"] for v in versions[1:]} == {"SUPPORTED"}


def test_versions_answers_200(cloud):
    response = httpx.get(cloud.base_url + "/image/versions")
    assert response.status_code == 200
    assert response.json()["versions"][0]["id"] == "v2.16"


def test_unknown_paths_answer_glance_errors(cloud, glance):
    response = glance["alice"].http.get("/v2/nothing-here")
    assert response.status_code == 404
    assert response.json()["code"] == "404 Not Found"
    response = glance["alice"].http.post("/v2/schemas/image")
    assert response.status_code == 405
