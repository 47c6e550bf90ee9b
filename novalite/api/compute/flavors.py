"""Handlers of /flavors: listing and showing for everyone; creating, describing (2.55)
and deleting for admins (Nova's flavors and flavor-manage APIs)."""

from __future__ import annotations

from novalite.api import policy
from novalite.api.compute.schemas import flavors as schema
from novalite.api.compute.schemas import validate
from novalite.api.compute.views import flavors as view
from novalite.api.faults import HTTPFault
from novalite.api.request import ApiRequest, ApiResponse
from novalite.compute import flavors as compute_flavors
from novalite.db.api import flavors
from novalite.objects.flavor import Flavor

READ_EXTRA_SPECS = "os_compute_api:os-flavor-extra-specs:index"
_TRUE = ("1", "t", "true", "on", "y", "yes")
_FALSE = ("0", "f", "false", "off", "n", "no")


def project_filter(req: ApiRequest) -> str | None:
    """Whose access a lookup honours: none for admins, who see every flavor."""
    return None if req.ctx.is_admin else req.ctx.project_id


def _is_public(req: ApiRequest) -> bool | None:
    """Only admins choose: `is_public=none` (any case) is every flavor, as in Nova."""
    value = req.query.get("is_public")
    if not req.ctx.is_admin or value is None:
        return True
    lowered = value.strip().lower()
    if lowered == "none":
        return None
    if lowered not in _TRUE + _FALSE:
        raise HTTPFault(400, f"Invalid is_public filter [{value}]")
    return lowered in _TRUE


def _minimum(req: ApiRequest, param: str) -> int:
    value = req.query.get(param)
    try:
        return int(value) if value is not None else 0
    except ValueError:
        raise HTTPFault(400, f"Invalid {param} filter [{value}]") from None


def _list(req: ApiRequest) -> list[Flavor]:
    return flavors.flavor_get_all(
        _is_public(req), req.ctx.project_id, None if req.ctx.is_admin else False,
        min_memory_mb=_minimum(req, "minRam"), min_root_gb=_minimum(req, "minDisk"))


def _extra_specs_visible(req: ApiRequest) -> bool:
    """From 2.61 views carry extra specs, when policy lets the caller read them."""
    return req.at_least("2.61") and policy.check(req.ctx, READ_EXTRA_SPECS,
                                                 req.ctx.project_id)


def _show(req: ApiRequest, flavor: Flavor) -> ApiResponse:
    return ApiResponse(200, {"flavor": view.detail(flavor, req.base_url, req.version,
                                                   _extra_specs_visible(req))})


def index(req: ApiRequest) -> ApiResponse:
    return ApiResponse(200, {"flavors": [view.basic(f, req.base_url, req.version)
                                         for f in _list(req)]})


def detail(req: ApiRequest) -> ApiResponse:
    specs = _extra_specs_visible(req)
    return ApiResponse(200, {"flavors": [view.detail(f, req.base_url, req.version, specs)
                                         for f in _list(req)]})


def show(req: ApiRequest) -> ApiResponse:
    return _show(req, flavors.flavor_get_by_flavorid(req.params["flavor_id"],
                                                     project_filter(req)))


def create(req: ApiRequest) -> ApiResponse:
    """200, not 201, as Nova answers. A private flavor starts with no project access."""
    validate(schema.create_for(req.version), req.body)
    policy.authorize(req.ctx, "os_compute_api:os-flavor-manage:create")
    body = req.body["flavor"]
    flavor = compute_flavors.create(
        body["name"], body["ram"], body["vcpus"], body["disk"],
        ephemeral_gb=body.get("OS-FLV-EXT-DATA:ephemeral", 0), flavorid=body.get("id"),
        swap=body.get("swap", 0), rxtx_factor=body.get("rxtx_factor", 1.0),
        is_public=body.get("os-flavor-access:is_public", True),
        description=body.get("description"))
    return _show(req, flavor)


def update(req: ApiRequest) -> ApiResponse:
    """2.55: only the description can change."""
    if not req.at_least("2.55"):
        raise HTTPFault(404, "The resource could not be found.")
    validate(schema.update, req.body)
    policy.authorize(req.ctx, "os_compute_api:os-flavor-manage:update")
    return _show(req, flavors.flavor_set_description(
        req.params["flavor_id"], req.body["flavor"]["description"]))


def delete(req: ApiRequest) -> ApiResponse:
    """202, as Nova answers; servers of the flavor keep their own copy of it."""
    policy.authorize(req.ctx, "os_compute_api:os-flavor-manage:delete")
    flavors.flavor_destroy(req.params["flavor_id"])
    return ApiResponse(202)
