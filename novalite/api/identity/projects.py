"""/v3/projects."""

from __future__ import annotations

from novalite.api.identity import access, auth_tokens, body, views
from novalite.api.request import ApiRequest, ApiResponse
from novalite.identity import resource

_STRINGS = ("name", "description")


def index(req: ApiRequest) -> ApiResponse:
    access.enforce(req.ctx, "identity:list_projects")
    projects = resource.list_projects(name=req.query.get("name"),
                                      domain_id=req.query.get("domain_id"),
                                      enabled=body.query_bool(req.query.get("enabled")))
    return ApiResponse(200, views.collection(req, "projects", projects))


def show(req: ApiRequest) -> ApiResponse:
    """Admins see every project; a user the projects it holds a role on."""
    project_id = req.params["project_id"]
    if not any(p["id"] == project_id for p in auth_tokens.projects_of(req.ctx.user_id)):
        access.enforce(req.ctx, "identity:get_project")
    project = resource.get_project(project_id)
    return ApiResponse(200, {"project": views.entity(req, "projects", project)})


def create(req: ApiRequest) -> ApiResponse:
    access.enforce(req.ctx, "identity:create_project")
    ref = body.member(req.body, "project")
    enabled = body.boolean(ref, "enabled", "project")
    project = resource.create_project(
        body.string(ref, "name", "project"),
        body.string(ref, "domain_id", "project", required=False) or resource.DEFAULT_DOMAIN_ID,
        body.text(ref, "description", "project"), True if enabled is None else enabled)
    return ApiResponse(201, {"project": views.entity(req, "projects", project)})


def update(req: ApiRequest) -> ApiResponse:
    access.enforce(req.ctx, "identity:update_project")
    ref = body.member(req.body, "project")
    project = resource.update_project(req.params["project_id"],
                                      body.changes(ref, "project", _STRINGS))
    return ApiResponse(200, {"project": views.entity(req, "projects", project)})


def delete(req: ApiRequest) -> ApiResponse:
    access.enforce(req.ctx, "identity:delete_project")
    resource.delete_project(req.params["project_id"])
    return ApiResponse(204)
