"""/v3/domains."""

from __future__ import annotations

from novalite.api.identity import access, body, views
from novalite.api.request import ApiRequest, ApiResponse
from novalite.identity import resource


def index(req: ApiRequest) -> ApiResponse:
    access.enforce(req.ctx, "identity:list_domains")
    return ApiResponse(200, views.collection(req, "domains",
                                             resource.list_domains(req.query.get("name"))))


def show(req: ApiRequest) -> ApiResponse:
    access.enforce(req.ctx, "identity:get_domain")
    domain = resource.get_domain(req.params["domain_id"])
    return ApiResponse(200, {"domain": views.entity(req, "domains", domain)})


def create(req: ApiRequest) -> ApiResponse:
    access.enforce(req.ctx, "identity:create_domain")
    ref = body.member(req.body, "domain")
    enabled = body.boolean(ref, "enabled", "domain")
    domain = resource.create_domain(body.string(ref, "name", "domain"),
                                    body.text(ref, "description", "domain"),
                                    True if enabled is None else enabled)
    return ApiResponse(201, {"domain": views.entity(req, "domains", domain)})
