"""/v3/auth: issuing tokens (password or token method, project-scoped or unscoped),
validating and revoking them, and what a token may reach (catalog, projects)."""

from __future__ import annotations

from novalite.api.identity import access, body, token_views, views
from novalite.api.request import ApiRequest, ApiResponse
from novalite.identity import exception, resource, roles, tokens, users


def _domain_id(ref: dict, target: str) -> str:
    domain = body.member(ref, "domain", target)
    if "id" in domain:
        return body.string(domain, "id", "domain")
    return resource.get_domain_by_name(body.string(domain, "name", "domain"))["id"]


def _password_user(identity: dict) -> dict:
    password = body.member(identity, "password", "identity")
    user = body.member(password, "user", "password")
    secret = user.get("password")
    if not isinstance(secret, str):
        raise exception.ValidationError(attribute="password", target="user")
    try:
        if "id" in user:
            return users.authenticate(body.string(user, "id", "user"), None, None, secret)
        return users.authenticate(None, body.string(user, "name", "user"),
                                  _domain_id(user, "user"), secret)
    except exception.NotFound:  # an unknown domain name
        raise exception.Unauthorized() from None


def _token_user(identity: dict) -> str:
    token = body.member(identity, "token", "identity")
    return tokens.validate(body.string(token, "id", "token", max_length=4096)).user["id"]


def _user_id(auth: dict) -> tuple[str, list[str]]:
    identity = body.member(auth, "identity", "auth")
    methods = identity.get("methods")
    if not isinstance(methods, list) or not methods:
        raise exception.ValidationError(attribute="methods", target="identity")
    if "password" in methods:
        return _password_user(identity)["id"], ["password"]
    if "token" in methods:
        return _token_user(identity), ["token"]
    raise exception.Unauthorized()


def _project_id(auth: dict, user_id: str) -> str | None:
    """The requested project; with no scope, the user's default project if it holds a
    role there (as Keystone); domain and system scopes are not offered (401)."""
    scope = auth.get("scope")
    if scope is None or scope == "unscoped":
        default = users.get_user(user_id).get("default_project_id")
        if default and roles.effective_roles(user_id, default):
            return default
        return None
    project = body.member(scope if isinstance(scope, dict) else {}, "project", "scope")
    try:
        if "id" in project:
            return resource.get_project(body.string(project, "id", "project"))["id"]
        return resource.get_project_by_name(body.string(project, "name", "project"),
                                            _domain_id(project, "project"))["id"]
    except exception.NotFound:
        raise exception.Unauthorized() from None


def issue(req: ApiRequest) -> ApiResponse:
    auth = body.member(req.body, "auth")
    user_id, methods = _user_id(auth)
    token_id, token = tokens.issue(user_id, _project_id(auth, user_id), methods)
    with_catalog = "nocatalog" not in req.query
    return ApiResponse(201, token_views.render(token, with_catalog),
                       {"X-Subject-Token": token_id})


def _subject(req: ApiRequest, rule: str) -> tuple[str, tokens.Token]:
    token_id = req.headers.get("x-subject-token")
    if not token_id:
        raise exception.ValidationError(attribute="X-Subject-Token", target="headers")
    try:
        token = tokens.validate(token_id)
    except exception.Unauthorized:
        raise exception.TokenNotFound() from None
    access.enforce(req.ctx, rule, owner_user_id=token.user["id"])
    return token_id, token


def validate(req: ApiRequest) -> ApiResponse:
    token_id, token = _subject(req, "identity:validate_token")
    return ApiResponse(200, token_views.render(token, "nocatalog" not in req.query),
                       {"X-Subject-Token": token_id})


def check(req: ApiRequest) -> ApiResponse:
    token_id, _ = _subject(req, "identity:check_token")
    return ApiResponse(200, None, {"X-Subject-Token": token_id})


def revoke(req: ApiRequest) -> ApiResponse:
    token_id, _ = _subject(req, "identity:revoke_token")
    tokens.revoke(token_id)
    return ApiResponse(204)


def auth_catalog(req: ApiRequest) -> ApiResponse:
    token = tokens.validate(req.ctx.auth_token or "")
    if token.project is None:
        raise exception.Forbidden(
            "A project-scoped token is required to produce a service catalog.")
    catalog = token_views.render(token)["token"]["catalog"]
    return ApiResponse(200, {"catalog": catalog,
                             "links": {"self": f"{views.v3(req)}/auth/catalog",
                                       "previous": None, "next": None}})


def auth_projects(req: ApiRequest) -> ApiResponse:
    return ApiResponse(200, views.collection(req, "projects", projects_of(req.ctx.user_id),
                                             "auth/projects"))


def projects_of(user_id: str | None) -> list[dict]:
    """The enabled projects a user holds a role on."""
    ids = roles.projects_of_user(user_id) if user_id else []
    return resource.list_projects(ids=ids, enabled=True) if ids else []
