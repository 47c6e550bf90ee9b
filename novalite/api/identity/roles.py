"""/v3/roles, and the roles each implies (/v3/roles/{id}/implies, /v3/role_inferences)."""

from __future__ import annotations

from novalite.api.identity import access, body, views
from novalite.api.request import ApiRequest, ApiResponse
from novalite.identity import roles


def index(req: ApiRequest) -> ApiResponse:
    access.enforce(req.ctx, "identity:list_roles")
    return ApiResponse(200, views.collection(req, "roles",
                                             roles.list_roles(req.query.get("name"))))


def show(req: ApiRequest) -> ApiResponse:
    access.enforce(req.ctx, "identity:get_role")
    role = roles.get_role(req.params["role_id"])
    return ApiResponse(200, {"role": views.entity(req, "roles", role)})


def create(req: ApiRequest) -> ApiResponse:
    access.enforce(req.ctx, "identity:create_role")
    ref = body.member(req.body, "role")
    role = roles.create_role(body.string(ref, "name", "role"),
                             body.string(ref, "description", "role", required=False))
    return ApiResponse(201, {"role": views.entity(req, "roles", role)})


def update(req: ApiRequest) -> ApiResponse:
    access.enforce(req.ctx, "identity:update_role")
    ref = body.member(req.body, "role")
    role = roles.update_role(req.params["role_id"],
                             body.changes(ref, "role", ("name", "description"), ()))
    return ApiResponse(200, {"role": views.entity(req, "roles", role)})


def delete(req: ApiRequest) -> ApiResponse:
    access.enforce(req.ctx, "identity:delete_role")
    roles.delete_role(req.params["role_id"])
    return ApiResponse(204)


def _brief(req: ApiRequest, role: dict) -> dict:
    return {"id": role["id"], "name": role["name"],
            "links": {"self": f"{views.v3(req)}/roles/{role['id']}"}}


def _inference(req: ApiRequest, prior_id: str, implied_id: str) -> dict:
    return {"role_inference": {"prior_role": _brief(req, roles.get_role(prior_id)),
                               "implies": _brief(req, roles.get_role(implied_id))},
            "links": {"self": f"{views.v3(req)}/roles/{prior_id}/implies/{implied_id}"}}


def list_implied(req: ApiRequest) -> ApiResponse:
    access.enforce(req.ctx, "identity:list_implied_roles")
    prior = roles.get_role(req.params["prior_role_id"])
    implied = [_brief(req, i) for _, i in roles.list_implied_roles(prior["id"])]
    return ApiResponse(200, {"role_inference": {"prior_role": _brief(req, prior),
                                                "implies": implied},
                             "links": {"self": f"{views.v3(req)}/roles/{prior['id']}/implies"}})


def create_implied(req: ApiRequest) -> ApiResponse:
    access.enforce(req.ctx, "identity:create_implied_role")
    prior, implied = req.params["prior_role_id"], req.params["implied_role_id"]
    roles.create_implied_role(prior, implied)
    return ApiResponse(201, _inference(req, prior, implied))


def show_implied(req: ApiRequest) -> ApiResponse:
    access.enforce(req.ctx, "identity:get_implied_role")
    prior, implied = req.params["prior_role_id"], req.params["implied_role_id"]
    roles.get_implied_role(prior, implied)
    return ApiResponse(200, _inference(req, prior, implied))


def check_implied(req: ApiRequest) -> ApiResponse:
    access.enforce(req.ctx, "identity:check_implied_role")
    roles.get_implied_role(req.params["prior_role_id"], req.params["implied_role_id"])
    return ApiResponse(204)


def delete_implied(req: ApiRequest) -> ApiResponse:
    access.enforce(req.ctx, "identity:delete_implied_role")
    roles.delete_implied_role(req.params["prior_role_id"], req.params["implied_role_id"])
    return ApiResponse(204)


def inferences(req: ApiRequest) -> ApiResponse:
    access.enforce(req.ctx, "identity:list_role_inference_rules")
    by_prior: dict[str, dict] = {}
    for prior, implied in roles.list_implied_roles():
        rule = by_prior.setdefault(prior["id"], {"prior_role": _brief(req, prior),
                                                 "implies": []})
        rule["implies"].append(_brief(req, implied))
    return ApiResponse(200, {"role_inferences": list(by_prior.values()),
                             "links": {"self": f"{views.v3(req)}/role_inferences"}})
