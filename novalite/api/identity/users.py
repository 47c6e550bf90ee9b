"""/v3/users, a user's projects and its own password change."""

from __future__ import annotations

from novalite.api.identity import access, auth_tokens, body, views
from novalite.api.request import ApiRequest, ApiResponse
from novalite.identity import exception, resource, users

_STRINGS = ("name", "description", "email", "default_project_id", "password")


def index(req: ApiRequest) -> ApiResponse:
    access.enforce(req.ctx, "identity:list_users")
    found = users.list_users(name=req.query.get("name"), domain_id=req.query.get("domain_id"),
                             enabled=body.query_bool(req.query.get("enabled")))
    return ApiResponse(200, views.collection(req, "users", found))


def show(req: ApiRequest) -> ApiResponse:
    user_id = req.params["user_id"]
    access.enforce(req.ctx, "identity:get_user", owner_user_id=user_id)
    return ApiResponse(200, {"user": views.entity(req, "users", users.get_user(user_id))})


def create(req: ApiRequest) -> ApiResponse:
    access.enforce(req.ctx, "identity:create_user")
    ref = body.member(req.body, "user")
    fields = body.changes(ref, "user", _STRINGS)
    if "name" not in fields:
        raise exception.ValidationError(attribute="name", target="user")
    if fields.get("default_project_id"):
        resource.get_project(fields["default_project_id"])
    domain_id = (body.string(ref, "domain_id", "user", required=False)
                 or resource.DEFAULT_DOMAIN_ID)
    user = users.create_user(fields.pop("name"), domain_id, fields.pop("password", None),
                             **{k: v for k, v in fields.items() if v is not None})
    return ApiResponse(201, {"user": views.entity(req, "users", user)})


def update(req: ApiRequest) -> ApiResponse:
    access.enforce(req.ctx, "identity:update_user")
    ref = body.member(req.body, "user")
    user = users.update_user(req.params["user_id"], body.changes(ref, "user", _STRINGS))
    return ApiResponse(200, {"user": views.entity(req, "users", user)})


def delete(req: ApiRequest) -> ApiResponse:
    access.enforce(req.ctx, "identity:delete_user")
    users.delete_user(req.params["user_id"])
    return ApiResponse(204)


def change_password(req: ApiRequest) -> ApiResponse:
    """A user's own change; the original password must be right (401 otherwise)."""
    user_id = req.params["user_id"]
    access.enforce(req.ctx, "identity:change_password", owner_user_id=user_id)
    ref = body.member(req.body, "user")
    original = body.string(ref, "original_password", "user")
    new = body.string(ref, "password", "user")
    if not users.password_matches(user_id, original or ""):
        raise exception.Unauthorized()
    users.update_user(user_id, {"password": new})
    return ApiResponse(204)


def projects(req: ApiRequest) -> ApiResponse:
    user_id = req.params["user_id"]
    access.enforce(req.ctx, "identity:list_user_projects", owner_user_id=user_id)
    users.get_user(user_id)
    return ApiResponse(200, views.collection(req, "projects",
                                             auth_tokens.projects_of(user_id),
                                             f"users/{user_id}/projects"))
