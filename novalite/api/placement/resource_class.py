"""/resource_classes and /resource_classes/{name} (1.2)."""

from __future__ import annotations

from novalite.api.placement import common
from novalite.api.placement.schemas import resource_class as schema
from novalite.api.request import ApiRequest, ApiResponse
from novalite.db import session
from novalite.placement import resource_class


def _view(req: ApiRequest, name: str) -> dict:
    return {"name": name, "links": [{"rel": "self",
                                     "href": f"/placement/resource_classes/{name}"}]}


@common.handler("placement:resource_classes:list", since="1.2")
def index(req: ApiRequest) -> ApiResponse:
    with session.reader() as s:
        classes = resource_class.list_classes(s)
    body = {"resource_classes": [_view(req, name) for name, _ in classes]}
    return common.cached(req, ApiResponse(200, body))


@common.handler("placement:resource_classes:create", since="1.2")
def create(req: ApiRequest) -> ApiResponse:
    name = common.validate(schema.POST, req.body)["name"]
    with session.writer() as s:
        resource_class.create(s, name)
    return ApiResponse(201, None, {"Location": f"{req.base_url}/resource_classes/{name}"})


@common.handler("placement:resource_classes:show", since="1.2")
def show(req: ApiRequest) -> ApiResponse:
    with session.reader() as s:
        row = resource_class.get(s, req.params["name"])
    return common.cached(req, ApiResponse(200, _view(req, row.name)), row.updated)


@common.handler("placement:resource_classes:update", since="1.2")
def update(req: ApiRequest) -> ApiResponse:
    """Before 1.7 a rename; from 1.7 create-or-verify with no body."""
    name = req.params["name"]
    if not req.at_least("1.7"):
        new_name = common.validate(schema.PUT_V1_2, req.body)["name"]
        with session.writer() as s:
            resource_class.rename(s, name, new_name)
        return common.cached(req, ApiResponse(200, _view(req, new_name)))
    common.validate(schema.POST, {"name": name})
    with session.writer() as s:
        if resource_class.find(s, name):
            return common.cached(req, ApiResponse(204))
        resource_class.create(s, name)
    return common.cached(req, ApiResponse(201, None, {
        "Location": f"{req.base_url}/resource_classes/{name}"}))


@common.handler("placement:resource_classes:delete", since="1.2")
def delete(req: ApiRequest) -> ApiResponse:
    with session.writer() as s:
        resource_class.delete_class(s, req.params["name"])
    return ApiResponse(204)
