"""/v2.0/quotas: a project's network limits (`openstack quota show/set --network`)."""

from __future__ import annotations

from novalite.api.faults import HTTPFault
from novalite.api.network.resource import authorize
from novalite.api.request import ApiRequest, ApiResponse
from novalite.network import quotas, transaction


def _project(req: ApiRequest, rule: str) -> str:
    project_id = req.params["project_id"]
    authorize(req, rule, {"project_id": project_id})
    return project_id


def index(req: ApiRequest) -> ApiResponse:
    authorize(req, "update_quota", {})
    found = transaction.read(lambda s: [{**quotas.show(s, p), "project_id": p,
                                         "tenant_id": p} for p in quotas.projects(s)])
    return ApiResponse(200, {"quotas": found})


def show(req: ApiRequest) -> ApiResponse:
    project_id = _project(req, "get_quota")
    return ApiResponse(200, {"quota": transaction.read(lambda s: quotas.show(s, project_id))})


def defaults(req: ApiRequest) -> ApiResponse:
    _project(req, "get_quota")
    return ApiResponse(200, {"quota": transaction.read(lambda s: quotas.show(s, ""))})


def details(req: ApiRequest) -> ApiResponse:
    project_id = _project(req, "get_quota")
    return ApiResponse(200, {"quota": transaction.read(
        lambda s: quotas.details(s, project_id))})


def update(req: ApiRequest) -> ApiResponse:
    project_id = _project(req, "update_quota")
    body = req.body
    if not isinstance(body, dict) or not isinstance(body.get("quota"), dict):
        raise HTTPFault(400, "Unable to find 'quota' in request body")
    limits = {k: v for k, v in body["quota"].items() if k not in ("project_id",
                                                                 "tenant_id", "force",
                                                                 "check_limit")}
    return ApiResponse(200, {"quota": transaction.write(
        lambda s: quotas.update(s, project_id, limits))})


def delete(req: ApiRequest) -> ApiResponse:
    project_id = _project(req, "delete_quota")
    transaction.write(lambda s: quotas.reset(s, project_id))
    return ApiResponse(204)
