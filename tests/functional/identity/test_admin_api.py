"""Projects, users, roles and grants over HTTP, as `openstack project create`, `user
create --password --project`, `role add` send them; and the 403/404/409 bodies."""

from __future__ import annotations

import pytest


@pytest.fixture
def admin(identity):
    return identity.admin()


def _role_id(admin, name: str) -> str:
    (role,) = admin.get("/roles", params={"name": name}).json()["roles"]
    return role["id"]


def test_project_user_role_add_then_the_user_logs_in(identity, admin):
    project = admin.post("/projects", json={"project": {"name": "team", "description": "d",
                                                        "domain_id": "default"}})
    assert project.status_code == 201, project.text
    project = project.json()["project"]
    assert project["links"]["self"].endswith(f"/v3/projects/{project['id']}")
    assert project["domain_id"] == "default" and project["enabled"] is True
    user = admin.post("/users", json={"user": {"name": "alice", "password": "s3cret",
                                               "default_project_id": project["id"]}})
    assert user.status_code == 201, user.text
    user = user.json()["user"]
    assert "password" not in user and user["default_project_id"] == project["id"]
    grant = f"/projects/{project['id']}/users/{user['id']}/roles/{_role_id(admin, 'member')}"
    assert admin.head(grant).status_code == 404
    assert admin.put(grant).status_code == 204
    assert admin.put(grant).status_code == 204  # idempotent
    assert admin.head(grant).status_code == 204
    roles = admin.get(f"/projects/{project['id']}/users/{user['id']}/roles").json()["roles"]
    assert [r["name"] for r in roles] == ["member"]
    _, token = identity.login("alice", "team", "s3cret")
    assert sorted(r["name"] for r in token["roles"]) == ["member", "reader"]
    listed = admin.get(f"/users/{user['id']}/projects").json()["projects"]
    assert [p["name"] for p in listed] == ["team"]
    assert admin.delete(grant).status_code == 204
    assert admin.delete(grant).status_code == 404


def test_lookups_by_name_as_osc_does(admin):
    assert admin.get("/projects/demo").status_code == 404
    assert admin.get("/projects", params={"name": "demo"}).json()["projects"][0]["name"] == "demo"
    assert admin.get("/users", params={"name": "demo"}).json()["users"][0]["name"] == "demo"
    assert [d["id"] for d in admin.get("/domains").json()["domains"]] == ["default"]
    names = {r["name"] for r in admin.get("/roles").json()["roles"]}
    assert {"admin", "manager", "member", "reader"} <= names


def test_not_found_texts(admin):
    response = admin.get("/projects/nope")
    assert response.status_code == 404
    assert response.json() == {"error": {"code": 404, "title": "Not Found",
                                         "message": "Could not find project: nope."}}
    assert admin.get("/users/nope").json()["error"]["message"] == "Could not find user: nope."
    assert admin.get("/roles/nope").json()["error"]["message"] == "Could not find role: nope."
    assert admin.get("/no-such-thing").json()["error"]["code"] == 404


def test_conflicts_on_duplicate_names(admin):
    response = admin.post("/projects", json={"project": {"name": "demo"}})
    assert response.status_code == 409
    assert response.json()["error"]["title"] == "Conflict"
    assert response.json()["error"]["message"].startswith(
        "Conflict occurred attempting to store project - ")
    assert admin.post("/users", json={"user": {"name": "demo"}}).status_code == 409
    response = admin.post("/roles", json={"role": {"name": "member"}})
    assert response.json()["error"]["message"] == (
        "Conflict occurred attempting to store role - Duplicate entry found with name member.")


def test_member_is_forbidden_from_admin_apis_but_sees_itself(identity):
    token_id, token = identity.login("demo")
    me = identity.as_token(token_id)
    response = me.post("/projects", json={"project": {"name": "x"}})
    assert response.status_code == 403
    assert response.json()["error"] == {
        "code": 403, "title": "Forbidden",
        "message": "You are not authorized to perform the requested action: "
                   "identity:create_project."}
    assert me.get("/users").status_code == 403
    user_id = token["user"]["id"]
    assert me.get(f"/users/{user_id}").json()["user"]["name"] == "demo"
    assert me.get(f"/users/{user_id}/projects").status_code == 200
    assert me.get(f"/projects/{token['project']['id']}").status_code == 200
    assert me.get("/role_assignments", params={"user.id": user_id}).status_code == 200
    assert me.get("/role_assignments").status_code == 403


def test_identity_calls_need_a_token(identity):
    response = identity.http.get("/v3/projects")
    assert response.status_code == 401
    assert response.json()["error"]["title"] == "Unauthorized"
    bad = identity.http.get("/v3/projects", headers={"X-Auth-Token": "garbage"})
    assert bad.status_code == 401


def test_role_assignments_filters_effective_and_names(identity, admin):
    _, demo = identity.login("demo")
    params = {"user.id": demo["user"]["id"], "scope.project.id": demo["project"]["id"]}
    direct = admin.get("/role_assignments", params=params).json()["role_assignments"]
    assert len(direct) == 1
    assert direct[0]["scope"] == {"project": {"id": demo["project"]["id"]}}
    assert direct[0]["links"]["assignment"].endswith(
        f"/projects/{demo['project']['id']}/users/{demo['user']['id']}/roles/"
        f"{direct[0]['role']['id']}")
    effective = admin.get("/role_assignments",
                          params={**params, "effective": "", "include_names": ""})
    rows = effective.json()["role_assignments"]
    assert sorted(r["role"]["name"] for r in rows) == ["member", "reader"]
    assert rows[0]["user"]["name"] == "demo"
    assert rows[0]["user"]["domain"] == {"id": "default", "name": "Default"}
    assert rows[0]["scope"]["project"]["name"] == "demo"


def test_implied_roles(admin):
    admin_id, manager_id = _role_id(admin, "admin"), _role_id(admin, "manager")
    implies = admin.get(f"/roles/{admin_id}/implies").json()["role_inference"]
    assert [r["name"] for r in implies["implies"]] == ["manager"]
    rules = admin.get("/role_inferences").json()["role_inferences"]
    assert {(r["prior_role"]["name"], i["name"]) for r in rules for i in r["implies"]} == {
        ("admin", "manager"), ("manager", "member"), ("member", "reader")}
    extra = admin.post("/roles", json={"role": {"name": "auditor"}}).json()["role"]
    path = f"/roles/{extra['id']}/implies/{manager_id}"
    created = admin.put(path)
    assert created.status_code == 201
    assert created.json()["role_inference"]["implies"]["name"] == "manager"
    assert admin.head(path).status_code == 204
    assert admin.delete(path).status_code == 204
    assert admin.get(path).status_code == 404


def test_disabling_or_deleting_a_user_or_project_invalidates_its_tokens(identity, admin):
    project = admin.post("/projects", json={"project": {"name": "p1"}}).json()["project"]
    user = admin.post("/users", json={"user": {"name": "bob", "password": "pw"}}).json()["user"]
    admin.put(f"/projects/{project['id']}/users/{user['id']}/roles/{_role_id(admin, 'member')}")
    token, _ = identity.login("bob", "p1", "pw")
    compute = identity.cloud.api
    headers = {"X-Auth-Token": token}
    assert compute.get("/servers", headers=headers).status_code == 200
    assert admin.patch(f"/projects/{project['id']}",
                       json={"project": {"enabled": False}}).status_code == 200
    assert compute.get("/servers", headers=headers).status_code == 401
    admin.patch(f"/projects/{project['id']}", json={"project": {"enabled": True}})
    assert compute.get("/servers", headers=headers).status_code == 200
    assert admin.delete(f"/users/{user['id']}").status_code == 204
    assert compute.get("/servers", headers=headers).status_code == 401
    assert admin.delete(f"/projects/{project['id']}").status_code == 204
    assert admin.get(f"/projects/{project['id']}").status_code == 404


def test_password_change_revokes_old_tokens(identity, admin):
    token, demo = identity.login("demo")
    response = admin.patch(f"/users/{demo['user']['id']}",
                           json={"user": {"password": "new-password"}})
    assert response.status_code == 200
    assert identity.cloud.api.get("/servers", headers={"X-Auth-Token": token}).status_code == 401
    fresh, _ = identity.login("demo", password="new-password")
    assert identity.cloud.api.get("/servers", headers={"X-Auth-Token": fresh}).status_code == 200


def test_catalog_listings(admin, identity):
    services = admin.get("/services").json()["services"]
    assert {s["type"] for s in services} == {"identity", "compute", "image", "placement",
                                            "network", "block-storage", "volumev3"}
    endpoints = admin.get("/endpoints", params={"interface": "public"}).json()["endpoints"]
    assert len(endpoints) == 7 and all(e["region_id"] == "RegionOne" for e in endpoints)
    assert admin.get("/regions").json()["regions"][0]["id"] == "RegionOne"
