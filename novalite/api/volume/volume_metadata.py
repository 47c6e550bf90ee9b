"""/volumes/{id}/metadata: a volume's metadata read, merged, replaced, and item by item
(Cinder's volume metadata API; `openstack volume set --property` merges)."""

from __future__ import annotations

from typing import Any

from novalite.api.compute.schemas import validate
from novalite.api.faults import HTTPFault
from novalite.api.request import ApiRequest, ApiResponse
from novalite.api.volume import schemas
from novalite.api.volume.volumes import found, scope
from novalite.volume import api as volume_api

_ITEM = {"type": "object", "properties": {"meta": schemas.METADATA},
         "required": ["meta"], "additionalProperties": False}
_ALL = {"type": "object", "properties": {"metadata": schemas.METADATA},
        "required": ["metadata"], "additionalProperties": False}


def _saved(req: ApiRequest, metadata: dict[str, str]) -> dict[str, str]:
    return volume_api.update(scope(req), req.params["id"], {"volume_metadata": metadata}).metadata


def index(req: ApiRequest) -> ApiResponse:
    return ApiResponse(200, {"metadata": found(req, "volume:get").metadata})


def create(req: ApiRequest) -> ApiResponse:
    """Merged into what the volume has."""
    validate(_ALL, req.body)
    current = found(req, "volume:update").metadata
    return ApiResponse(200, {"metadata": _saved(req, {**current, **req.body["metadata"]})})


def replace(req: ApiRequest) -> ApiResponse:
    validate(_ALL, req.body)
    found(req, "volume:update")
    return ApiResponse(200, {"metadata": _saved(req, req.body["metadata"])})


def _item(req: ApiRequest, metadata: dict[str, Any]) -> str:
    if req.params["key"] not in metadata:
        raise HTTPFault(404, "Metadata item was not found")
    return str(metadata[req.params["key"]])


def show(req: ApiRequest) -> ApiResponse:
    metadata = found(req, "volume:get").metadata
    return ApiResponse(200, {"meta": {req.params["key"]: _item(req, metadata)}})


def update(req: ApiRequest) -> ApiResponse:
    validate(_ITEM, req.body)
    meta = req.body["meta"]
    if list(meta) != [req.params["key"]]:
        raise HTTPFault(400, "Request body and URI mismatch")
    current = found(req, "volume:update").metadata
    _saved(req, {**current, **meta})
    return ApiResponse(200, {"meta": meta})


def delete(req: ApiRequest) -> ApiResponse:
    current = found(req, "volume:update").metadata
    _item(req, current)
    _saved(req, {k: v for k, v in current.items() if k != req.params["key"]})
    return ApiResponse(200)
