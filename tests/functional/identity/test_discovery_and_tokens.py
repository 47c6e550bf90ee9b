"""Version discovery and the token lifecycle over HTTP, as clients and tempest need it."""

from __future__ import annotations

import datetime
import re

import pytest

TOKEN_TIME = "%Y-%m-%dT%H:%M:%S.%fZ"


def test_root_lists_v3_without_a_token(identity):
    response = identity.http.get("/")
    assert response.status_code == 300
    (v3,) = response.json()["versions"]["values"]
    assert v3["id"] == "v3.14" and v3["status"] == "stable"
    assert v3["links"] == [{"rel": "self",
                            "href": f"{identity.cloud.base_url}/identity/v3/"}]
    assert v3["media-types"][0]["type"] == "application/vnd.openstack.identity-v3+json"


def test_unversioned_root_without_a_slash(identity):
    response = identity.http.get(f"{identity.cloud.base_url}/identity")
    assert response.status_code == 300


def test_v3_document(identity):
    for path in ("/v3", "/v3/"):
        response = identity.http.get(path)
        assert response.status_code == 200
        assert response.json()["version"]["id"] == "v3.14"


def test_token_body_field_by_field(identity):
    token_id, token = identity.login("demo")
    assert token_id
    assert token["methods"] == ["password"]
    assert token["is_domain"] is False
    assert len(token["audit_ids"]) == 1 and len(token["audit_ids"][0]) == 22
    issued = datetime.datetime.strptime(token["issued_at"], TOKEN_TIME)
    expires = datetime.datetime.strptime(token["expires_at"], TOKEN_TIME)
    assert expires - issued == datetime.timedelta(seconds=3600)
    assert token["user"]["name"] == "demo"
    assert token["user"]["domain"] == {"id": "default", "name": "Default"}
    assert token["user"]["password_expires_at"] is None
    assert re.fullmatch(r"[0-9a-f]{32}", token["user"]["id"])
    assert token["project"]["name"] == "demo"
    assert token["project"]["domain"] == {"id": "default", "name": "Default"}
    assert sorted(r["name"] for r in token["roles"]) == ["member", "reader"]
    assert all(set(r) == {"id", "name"} for r in token["roles"])
    by_type = {s["type"]: s for s in token["catalog"]}
    assert set(by_type) == {"identity", "compute", "image", "placement", "network",
                            "block-storage", "volumev3"}
    base = identity.cloud.base_url
    public = [e for e in by_type["compute"]["endpoints"] if e["interface"] == "public"]
    assert public == [{"id": public[0]["id"], "interface": "public", "region_id": "RegionOne",
                       "region": "RegionOne", "url": f"{base}/compute/v2.1"}]
    assert {e["url"] for e in by_type["identity"]["endpoints"]} == {f"{base}/identity"}
    assert by_type["compute"]["name"] == "nova" and by_type["compute"]["id"]


def test_admin_token_lists_implied_roles(identity):
    _, token = identity.login("admin")
    assert sorted(r["name"] for r in token["roles"]) == ["admin", "manager", "member",
                                                          "reader"]


@pytest.mark.parametrize("form", ["names", "user_id", "domain_id", "project_id"])
def test_every_body_form_authenticates(identity, form):
    _, first = identity.login("demo")
    body = identity.password_body("demo", identity.passwords["demo"])
    user = body["auth"]["identity"]["password"]["user"]
    scope = body["auth"]["scope"]["project"]
    if form == "user_id":
        body["auth"]["identity"]["password"]["user"] = {
            "id": first["user"]["id"], "password": identity.passwords["demo"]}
    elif form == "domain_id":
        user["domain"] = {"id": "default"}
        scope["domain"] = {"id": "default"}
    elif form == "project_id":
        body["auth"]["scope"] = {"project": {"id": first["project"]["id"]}}
    response = identity.http.post("/v3/auth/tokens", json=body)
    assert response.status_code == 201, response.text
    assert response.json()["token"]["project"]["id"] == first["project"]["id"]


def test_unscoped_token_has_no_project_or_catalog(identity):
    body = identity.password_body("service-less", "x", project=None)
    response = identity.http.post("/v3/auth/tokens", json=body)
    assert response.status_code == 401
    admin = identity.admin()
    created = admin.post("/users", json={"user": {"name": "loner", "password": "pw"}})
    assert created.status_code == 201, created.text
    response = identity.http.post("/v3/auth/tokens",
                                  json=identity.password_body("loner", "pw", project=None))
    assert response.status_code == 201, response.text
    token = response.json()["token"]
    assert "project" not in token and "catalog" not in token and "roles" not in token
    assert token["user"]["name"] == "loner"


def test_unscoped_request_uses_the_default_project(identity):
    response = identity.http.post("/v3/auth/tokens", json=identity.password_body(
        "demo", identity.passwords["demo"], project=None))
    assert response.status_code == 201
    assert response.json()["token"]["project"]["name"] == "demo"


def test_token_method_rescopes(identity):
    token_id, _ = identity.login("demo")
    body = {"auth": {"identity": {"methods": ["token"], "token": {"id": token_id}},
                     "scope": {"project": {"name": "demo", "domain": {"id": "default"}}}}}
    response = identity.http.post("/v3/auth/tokens", json=body)
    assert response.status_code == 201, response.text
    assert response.json()["token"]["methods"] == ["token"]


@pytest.mark.parametrize("user,password,project", [
    ("demo", "wrong", "demo"),
    ("nobody", "wrong", "demo"),
    ("demo", None, "admin"),  # no role there
    ("demo", None, "no-such-project"),
])
def test_bad_credentials_or_scope_are_401(identity, user, password, project):
    body = identity.password_body(user, password or identity.passwords["demo"], project)
    response = identity.http.post("/v3/auth/tokens", json=body)
    assert response.status_code == 401
    assert response.json() == {"error": {
        "code": 401, "title": "Unauthorized",
        "message": "The request you have made requires authentication."}}
    assert response.headers["WWW-Authenticate"] == (
        f'Keystone uri="{identity.cloud.base_url}/identity"')


@pytest.mark.parametrize("body", [None, {}, {"auth": {}}, {"auth": {"identity": {}}},
                                  {"auth": {"identity": {"methods": ["password"]}}}])
def test_malformed_auth_bodies_are_400(identity, body):
    response = identity.http.post("/v3/auth/tokens", json=body)
    assert response.status_code == 400
    assert response.json()["error"]["title"] == "Bad Request"
    assert response.json()["error"]["message"].startswith("Expecting to find")


def test_validate_check_and_revoke(identity):
    token_id, token = identity.login("demo")
    me = identity.as_token(token_id)
    response = me.get("/auth/tokens", headers={"X-Subject-Token": token_id})
    assert response.status_code == 200
    assert response.headers["X-Subject-Token"] == token_id
    assert response.json()["token"]["audit_ids"] == token["audit_ids"]
    assert me.head("/auth/tokens", headers={"X-Subject-Token": token_id}).status_code == 200
    other, _ = identity.login("admin")
    assert me.get("/auth/tokens", headers={"X-Subject-Token": other}).status_code == 403
    assert me.delete("/auth/tokens",
                     headers={"X-Subject-Token": token_id}).status_code == 204
    admin = identity.admin()
    response = admin.get("/auth/tokens", headers={"X-Subject-Token": token_id})
    assert response.status_code == 404
    assert response.json()["error"]["message"] == "Failed to validate token"
    assert me.get("/auth/projects").status_code == 401


def test_admin_validates_any_token(identity):
    token_id, _ = identity.login("demo")
    response = identity.admin().get("/auth/tokens", headers={"X-Subject-Token": token_id})
    assert response.status_code == 200
    assert response.json()["token"]["user"]["name"] == "demo"


def test_auth_catalog_and_projects(identity):
    token_id, token = identity.login("demo")
    me = identity.as_token(token_id)
    response = me.get("/auth/catalog")
    assert response.status_code == 200
    assert response.json()["catalog"] == token["catalog"]
    projects = me.get("/auth/projects").json()["projects"]
    assert [p["name"] for p in projects] == ["demo"]
    assert projects[0]["links"]["self"].endswith(f"/v3/projects/{projects[0]['id']}")
