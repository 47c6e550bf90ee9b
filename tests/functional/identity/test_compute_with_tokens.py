"""The compute API behind keystone tokens: 401 in Nova's format, the token's project as
the caller's project."""

from __future__ import annotations

from novalite.image import db as images


def test_no_token_or_a_bad_one_is_401_in_novas_format(identity):
    base = identity.cloud.base_url
    for headers in ({}, {"X-Auth-Token": "not-a-token"}):
        response = identity.cloud.api.get("/servers", headers=headers)
        assert response.status_code == 401
        assert response.json() == {"unauthorized": {
            "code": 401, "message": "The request you have made requires authentication."}}
        assert response.headers["WWW-Authenticate"] == f'Keystone uri="{base}/identity"'


def test_version_documents_need_no_token(identity):
    assert identity.cloud.api.get("").status_code == 200


def test_revoked_token_is_refused(identity):
    token, _ = identity.login("demo")
    headers = {"X-Auth-Token": token}
    assert identity.cloud.api.get("/flavors", headers=headers).status_code == 200
    identity.as_token(token).delete("/auth/tokens", headers={"X-Subject-Token": token})
    assert identity.cloud.api.get("/flavors", headers=headers).status_code == 401


def test_project_scope_reaches_compute(identity):
    demo_token, demo = identity.login("demo")
    admin_token, _ = identity.login("admin")
    api = identity.cloud.api
    created = api.post("/servers", headers={"X-Auth-Token": demo_token}, json={"server": {
        "name": "mine", "flavorRef": "1", "imageRef": images.DEFAULT_IMAGE_ID}})
    assert created.status_code == 202, created.text
    server_id = created.json()["server"]["id"]
    shown = api.get(f"/servers/{server_id}", headers={"X-Auth-Token": demo_token}).json()
    assert shown["server"]["tenant_id"] == demo["project"]["id"]
    assert shown["server"]["user_id"] == demo["user"]["id"]
    # admin-only compute policy follows the token's roles
    flavor = {"flavor": {"name": "f", "ram": 64, "vcpus": 1, "disk": 1}}
    assert api.post("/flavors", json=flavor,
                    headers={"X-Auth-Token": demo_token}).status_code == 403
    assert api.post("/flavors", json=flavor,
                    headers={"X-Auth-Token": admin_token}).status_code == 200

