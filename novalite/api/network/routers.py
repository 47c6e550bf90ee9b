"""/v2.0/routers, with add_router_interface / remove_router_interface."""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from novalite.api.faults import HTTPFault
from novalite.api.network.resource import Resource, authorize, scope
from novalite.api.request import ApiRequest, ApiResponse
from novalite.network import routers, transaction
from novalite.network.records import Record

RESOURCE = Resource(
    name="router", collection="routers", get=routers.get, record=routers.record,
    list=lambda s, sc, req: routers.list_records(s, sc),
    create=lambda s, req, values: routers.create(s, scope(req), values.pop("project_id"),
                                                 values),
    update=lambda s, req, row, values: routers.update(s, scope(req), row, values),
    delete=lambda s, req, row: routers.delete(s, scope(req), row))


def _interface_body(req: ApiRequest) -> dict[str, Any]:
    body = req.body
    if not isinstance(body, dict) or set(body) - {"subnet_id", "port_id"} or not all(
            isinstance(v, str) for v in body.values()):
        raise HTTPFault(400, "Bad router request: Either subnet_id or port_id must be "
                             "specified.")
    return body


def _interface(req: ApiRequest, action: str) -> ApiResponse:
    values = _interface_body(req)

    def work(s: Session) -> Record:
        row = routers.get(s, scope(req), req.params["id"])
        authorize(req, f"{action}_router_interface", {"project_id": row.project_id})
        change = routers.add_interface if action == "add" else routers.remove_interface
        return change(s, scope(req), row, values)
    return ApiResponse(200, transaction.write(work))


def add_interface(req: ApiRequest) -> ApiResponse:
    return _interface(req, "add")


def remove_interface(req: ApiRequest) -> ApiResponse:
    return _interface(req, "remove")
