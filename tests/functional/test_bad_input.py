"""Bad input never gets a 5xx, on any API, authenticated or not: the four causes a fuzz run
found (JSON nested ~1,000 deep, a lone UTF-16 surrogate in a name, a list where a
description string goes, a placement inventory under a bad resource-class key) and a body
beyond [oslo_middleware] max_request_body_size (413 before it is read whole)."""

from __future__ import annotations

import httpx
import pytest

from tests.functional.identity.conftest import Identity

DEEP = "[" * 1000 + "]" * 1000


@pytest.fixture
def identity(conf, cloud_factory) -> Identity:
    conf.set_override("auth_strategy", "keystone", group="api")
    return Identity(cloud_factory(hosts=1))


@pytest.fixture
def admin(identity) -> httpx.Client:
    token, _ = identity.login("admin")
    return httpx.Client(base_url=identity.cloud.base_url, timeout=30,
                        headers={"X-Auth-Token": token,
                                 "OpenStack-API-Version": "placement latest"})


@pytest.mark.parametrize("path", ["/identity/v3/auth/tokens", "/compute/v2.1/servers",
                                  "/placement/resource_providers", "/image/v2/images",
                                  "/identity/v3/projects"])
def test_json_nested_a_thousand_deep_is_a_400(admin, path):
    for client in (admin, httpx.Client(base_url=admin.base_url, timeout=30)):
        response = client.post(path, content=DEEP, headers={
            "Content-Type": "application/json"})
        assert response.status_code in (400, 401), (path, response.text)


def test_an_unauthenticated_body_beyond_the_limit_is_a_413(identity):
    response = identity.http.post("/v3/auth/tokens", content=b"{" + b" " * 200_000 + b"}",
                                  headers={"Content-Type": "application/json"})
    assert response.status_code == 413
    chunked = identity.http.post("/v3/auth/tokens", content=iter([b" " * 65536] * 4),
                                 headers={"Content-Type": "application/json"})
    assert chunked.status_code == 413


def test_a_lone_surrogate_in_a_name_is_a_400(admin):
    body = '{"server": {"name": "\\ud800", "imageRef": "x", "flavorRef": "1"}}'
    response = admin.post("/compute/v2.1/servers", content=body,
                          headers={"Content-Type": "application/json"})
    assert response.status_code == 400, response.text
    project = '{"project": {"name": "\\udfff"}}'
    response = admin.post("/identity/v3/projects", content=project,
                          headers={"Content-Type": "application/json"})
    assert response.status_code == 400, response.text


@pytest.mark.parametrize("kind", ["projects", "domains"])
def test_a_list_for_a_description_is_a_400(admin, kind):
    member = kind[:-1]
    response = admin.post(f"/identity/v3/{kind}", json={member: {
        "name": f"n-{kind}", "description": ["not", "text"]}})
    assert response.status_code == 400, response.text


def test_a_bad_resource_class_key_in_an_inventory_is_a_400(admin):
    rp = admin.post("/placement/resource_providers", json={"name": "fuzz"}).json()
    response = admin.put(f"/placement/resource_providers/{rp['uuid']}/inventories", json={
        "resource_provider_generation": rp["generation"],
        "inventories": {"bad-class": {"total": 1}, "VCPU": {"total": 1}}})
    assert response.status_code == 400, response.text


def test_a_server_the_broker_cannot_take_is_a_fast_503_and_leaves_nothing(
        conf, cloud_factory, monkeypatch):
    from novalite.conductor import rpcapi
    from novalite.image import db as images
    from novalite.rpc.errors import TransportUnavailable

    cloud = cloud_factory(hosts=1)

    def unreachable(self, ctx, spec, uuids, timeout=None):
        assert timeout is not None and timeout <= 10  # the API does not wait a minute
        raise TransportUnavailable("Cannot reach the message broker")
    monkeypatch.setattr(rpcapi.ComputeTaskAPI, "schedule_and_build_instances", unreachable)
    response = cloud.api.post("/servers", json={"server": {
        "name": "vm", "flavorRef": "1", "imageRef": images.DEFAULT_IMAGE_ID}})
    assert response.status_code == 503, response.text
    assert response.headers["Retry-After"] == "10"
    assert "nothing was created" in response.json()["serviceUnavailable"]["message"]
    assert cloud.api.get("/servers").json()["servers"] == []
