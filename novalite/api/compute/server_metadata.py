"""Handlers of /servers/{id}/metadata: list, merge (POST), replace (PUT), and one item
by key; changes count against the `metadata_items` quota (Nova's 403 beyond it)."""

from __future__ import annotations

from novalite import exception
from novalite.api import policy
from novalite.api.compute.schemas import server_details as schema
from novalite.api.compute.schemas import validate
from novalite.api.compute.servers import get_instance
from novalite.api.faults import HTTPFault
from novalite.api.request import ApiRequest, ApiResponse
from novalite.compute import server_details
from novalite.db.api import instance_details
from novalite.objects.instance import Instance

RULE = "os_compute_api:server-metadata:%s"


def _target(req: ApiRequest, rule: str) -> Instance:
    instance = get_instance(req)
    policy.authorize(req.ctx, RULE % rule, instance.project_id)
    return instance


def index(req: ApiRequest) -> ApiResponse:
    instance = _target(req, "index")
    return ApiResponse(200, {"metadata": instance_details.metadata_get(instance.uuid)})


def show(req: ApiRequest) -> ApiResponse:
    instance = _target(req, "show")
    key = req.params["key"]
    metadata = instance_details.metadata_get(instance.uuid)
    if key not in metadata:
        raise HTTPFault(404, "Metadata item was not found")
    return ApiResponse(200, {"meta": {key: metadata[key]}})


def _change(req: ApiRequest, rule: str, replace: bool) -> ApiResponse:
    validate(schema.metadata, req.body)
    instance = _target(req, rule)
    result = server_details.update_metadata(req.ctx, instance, req.body["metadata"],
                                            replace)
    return ApiResponse(200, {"metadata": result})


def create(req: ApiRequest) -> ApiResponse:
    return _change(req, "create", replace=False)


def update_all(req: ApiRequest) -> ApiResponse:
    return _change(req, "update_all", replace=True)


def update(req: ApiRequest) -> ApiResponse:
    validate(schema.meta_item, req.body)
    instance = _target(req, "update")
    item = req.body["meta"]
    if req.params["key"] not in item:
        raise HTTPFault(400, "Request body and URI mismatch")
    server_details.update_metadata(req.ctx, instance, item, replace=False)
    return ApiResponse(200, {"meta": item})


def delete(req: ApiRequest) -> ApiResponse:
    instance = _target(req, "delete")
    key = req.params["key"]
    if key not in instance_details.metadata_get(instance.uuid):
        raise HTTPFault(404, "Metadata item was not found")
    try:
        server_details.delete_metadata(req.ctx, instance, key)
    except exception.NotFound:
        raise HTTPFault(404, "Metadata item was not found") from None
    return ApiResponse(204)
