"""Handlers of /flavors: listing and showing for everyone; creating, describing (2.55)
and deleting for admins (Nova's flavors and flavor-manage APIs)."""

from __future__ import annotations

from novalite import strutils
from novalite.api import policy
from novalite.api.compute import paging, query
from novalite.api.compute.schemas import flavors as schema
from novalite.api.compute.schemas import validate
from novalite.api.compute.views import flavors as view
from novalite.api.faults import HTTPFault
from novalite.api.request import ApiRequest, ApiResponse
from novalite.compute import flavors as compute_flavors
from novalite.db.api import flavors
from novalite.objects.flavor import Flavor

READ_EXTRA_SPECS = "os_compute_api:os-flavor-extra-specs:index"


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
    parsed = strutils.parse_bool(lowered)
    if parsed is None:
        raise HTTPFault(400, f"Invalid is_public filter [{value}]")
    return parsed


def _minimum(req: ApiRequest, param: str) -> int:
    value = req.query.get(param)
    try:
        return int(value) if value is not None else 0
    except ValueError:
        raise HTTPFault(400, f"Invalid {param} filter [{value}]") from None


# Nova's flavor sort keys that novalite's flavors carry (created_at and updated_at are
# not kept on the object: they sort as the flavor ids do).
_SORT_KEYS = ("description", "disabled", "ephemeral_gb", "flavorid", "id", "is_public",
              "memory_mb", "name", "root_gb", "rxtx_factor", "swap", "vcpu_weight",
              "vcpus", "created_at", "updated_at")


def _sorted(req: ApiRequest, found: list[Flavor]) -> list[Flavor]:
    key = req.query.get("sort_key") or "flavorid"
    direction = req.query.get("sort_dir") or "asc"
    if key not in _SORT_KEYS:
        raise HTTPFault(400, f"Invalid input for query parameters sort_key. Value: {key}. "
                             f"'{key}' is not one of {list(_SORT_KEYS)}")
    if direction not in ("asc", "desc"):
        raise HTTPFault(400, f"Invalid input for query parameters sort_dir. Value: "
                             f"{direction}. '{direction}' is not one of ['asc', 'desc']")
    attr = "flavorid" if key in ("created_at", "updated_at") else key
    return sorted(found, key=lambda f: (getattr(f, attr) is None, getattr(f, attr)),
                  reverse=direction == "desc")


def _list(req: ApiRequest) -> list[Flavor]:
    """Filtered, sorted, then the page after `marker` (a flavor id)."""
    query.only_from(req, "2.75", ("limit", "marker", "is_public", "minRam", "minDisk",
                                  "sort_key", "sort_dir"))
    found = _sorted(req, flavors.flavor_get_all(
        _is_public(req), req.ctx.project_id, None if req.ctx.is_admin else False,
        min_memory_mb=_minimum(req, "minRam"), min_root_gb=_minimum(req, "minDisk")))
    limit, marker = paging.limit_and_marker(req)
    start = 0
    if marker is not None:
        ids = [f.flavorid for f in found]
        if marker not in ids:
            raise HTTPFault(400, f"marker [{marker}] not found")
        start = ids.index(marker) + 1
    return found[start:start + limit]


def _page(req: ApiRequest, collection: str, shown: list[dict]) -> dict:
    body: dict = {"flavors": shown}
    links = paging.next_links(req, collection, shown, "id")
    if links:
        body["flavors_links"] = links
    return body


def _extra_specs_visible(req: ApiRequest) -> bool:
    """From 2.61 views carry extra specs, when policy lets the caller read them."""
    return req.at_least("2.61") and policy.check(req.ctx, READ_EXTRA_SPECS,
                                                 req.ctx.project_id)


def _show(req: ApiRequest, flavor: Flavor) -> ApiResponse:
    return ApiResponse(200, {"flavor": view.detail(flavor, req.base_url, req.version,
                                                   _extra_specs_visible(req))})


def index(req: ApiRequest) -> ApiResponse:
    return ApiResponse(200, _page(req, "flavors", [view.basic(f, req.base_url, req.version)
                                                   for f in _list(req)]))


def detail(req: ApiRequest) -> ApiResponse:
    specs = _extra_specs_visible(req)
    return ApiResponse(200, _page(req, "flavors/detail",
                                  [view.detail(f, req.base_url, req.version, specs)
                                   for f in _list(req)]))


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
    flavor = flavors.flavor_set_description(req.params["flavor_id"],
                                            req.body["flavor"]["description"])
    compute_flavors.notify_update(flavor.flavorid)
    return _show(req, flavor)


def delete(req: ApiRequest) -> ApiResponse:
    """202, as Nova answers; servers of the flavor keep their own copy of it."""
    policy.authorize(req.ctx, "os_compute_api:os-flavor-manage:delete")
    compute_flavors.notify_delete(flavors.flavor_destroy(req.params["flavor_id"]))
    return ApiResponse(202)
