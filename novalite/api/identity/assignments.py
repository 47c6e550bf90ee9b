"""Role grants of users on projects (/v3/projects/{p}/users/{u}/roles/{r}) and the
/v3/role_assignments listing with its filters."""

from __future__ import annotations

from novalite.api.identity import access, body, views
from novalite.api.request import ApiRequest, ApiResponse
from novalite.identity import resource, roles, users


def _parties(req: ApiRequest) -> tuple[str, str]:
    """Project and user of the path, 404 (Keystone's text) for either missing."""
    project_id, user_id = req.params["project_id"], req.params["user_id"]
    resource.get_project(project_id)
    users.get_user(user_id)
    return project_id, user_id


def grant(req: ApiRequest) -> ApiResponse:
    access.enforce(req.ctx, "identity:create_grant")
    project_id, user_id = _parties(req)
    role_id = roles.get_role(req.params["role_id"])["id"]
    roles.add_grant(user_id, project_id, role_id)
    return ApiResponse(204)


def check(req: ApiRequest) -> ApiResponse:
    access.enforce(req.ctx, "identity:check_grant")
    project_id, user_id = _parties(req)
    roles.get_role(req.params["role_id"])
    roles.check_grant(user_id, project_id, req.params["role_id"])
    return ApiResponse(204)


def revoke(req: ApiRequest) -> ApiResponse:
    access.enforce(req.ctx, "identity:revoke_grant")
    project_id, user_id = _parties(req)
    roles.get_role(req.params["role_id"])
    roles.remove_grant(user_id, project_id, req.params["role_id"])
    return ApiResponse(204)


def list_grants(req: ApiRequest) -> ApiResponse:
    access.enforce(req.ctx, "identity:list_grants")
    project_id, user_id = _parties(req)
    granted = {a["role_id"] for a in roles.list_assignments(user_id, project_id)}
    found = [r for r in roles.list_roles() if r["id"] in granted]
    return ApiResponse(200, views.collection(
        req, "roles", found, f"projects/{project_id}/users/{user_id}/roles"))


def _named(ref: dict, domain_names: dict[str, str]) -> dict:
    named = {"id": ref["id"], "name": ref["name"]}
    if ref.get("domain_id"):
        named["domain"] = {"id": ref["domain_id"], "name": domain_names[ref["domain_id"]]}
    return named


def _render(req: ApiRequest, rows: list[dict], include_names: bool) -> list[dict]:
    names: dict = {}
    if include_names:
        names = {"role": {r["id"]: r for r in roles.list_roles()},
                 "user": {u["id"]: u for u in users.list_users()},
                 "project": {p["id"]: p for p in resource.list_projects()},
                 "domain": {d["id"]: d["name"] for d in resource.list_domains()}}
    rendered = []
    for row in rows:
        refs = {"role": {"id": row["role_id"]}, "user": {"id": row["user_id"]},
                "project": {"id": row["project_id"]}}
        if include_names:
            refs = {kind: _named(names[kind][ref["id"]], names["domain"])
                    for kind, ref in refs.items() if ref["id"] in names[kind]}
        link = (f"{views.v3(req)}/projects/{row['project_id']}/users/{row['user_id']}"
                f"/roles/{row['role_id']}")
        rendered.append({"role": refs.get("role"), "user": refs.get("user"),
                         "scope": {"project": refs.get("project")},
                         "links": {"assignment": link}})
    return rendered


def role_assignments(req: ApiRequest) -> ApiResponse:
    """Admins see all; a user its own (Keystone's `identity:list_role_assignments`)."""
    query = req.query
    user_id = query.get("user.id")
    access.enforce(req.ctx, "identity:list_role_assignments",
                   owner_user_id=user_id if user_id is not None else "")
    rows = roles.list_assignments(user_id=user_id, project_id=query.get("scope.project.id"),
                                  role_id=query.get("role.id"),
                                  effective="effective" in query
                                  and bool(body.query_bool(query.get("effective") or "1")))
    include_names = "include_names" in query and body.query_bool(
        query.get("include_names") or "1")
    url = f"{views.v3(req)}/role_assignments" + (f"?{query}" if query else "")
    return ApiResponse(200, {"role_assignments": _render(req, rows, bool(include_names)),
                             "links": {"self": url, "previous": None, "next": None}})
