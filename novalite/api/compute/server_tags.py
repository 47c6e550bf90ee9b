"""Handlers of /servers/{id}/tags (2.26): list, replace, delete all, and one tag: check,
add (at most 50), delete. Changes need the server at rest in a running or stopped
state (409 otherwise, as Nova)."""

from __future__ import annotations

import jsonschema

from novalite.api import policy
from novalite.api.compute.schemas import server_details as schema
from novalite.api.compute.schemas import validate
from novalite.api.compute.servers import get_instance
from novalite.api.faults import HTTPFault
from novalite.api.request import ApiRequest, ApiResponse
from novalite.compute import server_details
from novalite.db.api import instance_details
from novalite.objects.instance import Instance

RULE = "os_compute_api:os-server-tags:%s"


def _target(req: ApiRequest, rule: str) -> Instance:
    if not req.at_least("2.26"):
        raise HTTPFault(404, "The resource could not be found.")
    instance = get_instance(req)
    policy.authorize(req.ctx, RULE % rule, instance.project_id)
    return instance


def index(req: ApiRequest) -> ApiResponse:
    instance = _target(req, "index")
    return ApiResponse(200, {"tags": instance_details.tags_get(instance.uuid)})


def show(req: ApiRequest) -> ApiResponse:
    instance = _target(req, "show")
    tag = req.params["tag"]
    if tag not in instance_details.tags_get(instance.uuid):
        raise HTTPFault(404, f"Server {instance.uuid} has no tag '{tag}'")
    return ApiResponse(204)


def update_all(req: ApiRequest) -> ApiResponse:
    if req.at_least("2.26"):
        validate(schema.tags, req.body)
    instance = _target(req, "update_all")
    return ApiResponse(200, {"tags": server_details.set_tags(instance, req.body["tags"])})


def update(req: ApiRequest) -> ApiResponse:
    """A body, if any, must be null (Nova's schema)."""
    instance = _target(req, "update")
    if req.body is not None:
        validate({"type": "null"}, req.body)
    tag = req.params["tag"]
    try:
        jsonschema.validate(tag, schema.tag)
    except jsonschema.ValidationError as exc:
        raise HTTPFault(400, f"Tag '{tag}' is invalid. It must be a non empty string "
                             "without characters '/' and ','. Validation error message: "
                             f"{exc.message}") from None
    if not server_details.add_tag(instance, tag):  # checks the server's state first
        return ApiResponse(204)
    location = f"{req.base_url}/v2.1/servers/{instance.uuid}/tags/{tag}"
    return ApiResponse(201, headers={"Location": location})


def delete(req: ApiRequest) -> ApiResponse:
    instance = _target(req, "delete")
    tag = req.params["tag"]
    if not server_details.delete_tag(instance, tag):
        raise HTTPFault(404, f"Instance {instance.uuid} has no tag '{tag}'")
    return ApiResponse(204)


def delete_all(req: ApiRequest) -> ApiResponse:
    server_details.delete_tag(_target(req, "delete_all"), None)
    return ApiResponse(204)
