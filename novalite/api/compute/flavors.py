"""Handlers of /flavors."""

from __future__ import annotations

from novalite.api.compute.views import flavors as view
from novalite.api.faults import HTTPFault
from novalite.api.request import ApiRequest, ApiResponse
from novalite.db.api import flavors


def _is_public(req: ApiRequest) -> bool | None:
    """Nova: default public only; `is_public=None` (any case) means all, for admins."""
    value = (req.query.get("is_public") or "true").strip().lower()
    if value == "none":
        return None if req.ctx.is_admin else True
    if value in ("true", "1", "yes", "t", "on"):
        return True
    if value in ("false", "0", "no", "f", "off"):
        return False
    raise HTTPFault(400, f"Invalid is_public filter [{value}]")


def index(req: ApiRequest) -> ApiResponse:
    return ApiResponse(200, {"flavors": [view.basic(f, req.base_url)
                                         for f in flavors.flavor_get_all(_is_public(req))]})


def detail(req: ApiRequest) -> ApiResponse:
    return ApiResponse(200, {"flavors": [view.detail(f, req.base_url)
                                         for f in flavors.flavor_get_all(_is_public(req))]})


def show(req: ApiRequest) -> ApiResponse:
    return ApiResponse(200, {"flavor": view.detail(
        flavors.flavor_get_by_flavorid(req.params["flavor_id"]), req.base_url)})
