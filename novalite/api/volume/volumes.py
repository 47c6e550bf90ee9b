"""/volumes: create, list (summary and detail), show, update and delete.

Another project's volume is a 404, as it is in Cinder; an admin reaches every volume by
its id and lists them all with `all_tenants`."""

from __future__ import annotations

from typing import Any

from novalite import strutils
from novalite.api import policy
from novalite.api.compute.schemas import validate
from novalite.api.faults import HTTPFault
from novalite.api.request import ApiRequest, ApiResponse
from novalite.api.volume import listing, schemas, views
from novalite.db import session
from novalite.volume import api as volume_api
from novalite.volume import errors, volumes
from novalite.volume.records import Volume

FILTERS = ("name", "status", "metadata", "bootable", "availability_zone", "size")
SORT_KEYS = ("id", "name", "status", "size", "created_at", "updated_at",
             "availability_zone", "bootable")


def scope(req: ApiRequest) -> str | None:
    """The project whose volumes the caller reaches by id (None: every project)."""
    return None if req.ctx.is_admin else req.ctx.project_id


def _value(volume: Volume, key: str) -> Any:
    return getattr(volume, key)


def _matches(volume: Volume, filters: dict[str, str]) -> bool:
    for key, wanted in filters.items():
        if key == "metadata":
            expected = listing.dict_filter(key, wanted)
            if any(volume.metadata.get(k) != v for k, v in expected.items()):
                return False
        elif str(_value(volume, key)).lower() != wanted.lower():
            return False
    return True


def _listed(req: ApiRequest) -> tuple[list[Volume], listing.Query]:
    policy.authorize(req.ctx, "volume:get_all")
    query = listing.parse(req, FILTERS, SORT_KEYS)
    project = None if req.ctx.is_admin and query.all_tenants else req.ctx.project_id
    with session.reader() as s:
        found = volumes.list_volumes(s, project)
    matching = [v for v in found if _matches(v, query.filters)]
    return listing.page(matching, query, _value,
                        lambda marker: errors.VolumeNotFound(volume_id=marker)), query


def index(req: ApiRequest) -> ApiResponse:
    shown, query = _listed(req)
    body = [views.volume_summary(req, v) for v in shown]
    return ApiResponse(200, {"volumes": body, **listing.next_links(req, "volumes", body,
                                                                    query)})


def detail(req: ApiRequest) -> ApiResponse:
    shown, query = _listed(req)
    body = [views.volume(req, v) for v in shown]
    return ApiResponse(200, {"volumes": body, **listing.next_links(req, "volumes", body,
                                                                    query)})


def found(req: ApiRequest, rule: str) -> Volume:
    with session.core_reader() as s:
        volume = volumes.get(s, req.params["id"], scope(req))
    policy.authorize(req.ctx, rule, volume.project_id)
    return volume


def show(req: ApiRequest) -> ApiResponse:
    return ApiResponse(200, {"volume": views.volume(req, found(req, "volume:get"))})


def names(values: dict[str, Any]) -> dict[str, Any]:
    """Cinder's v1 `display_name`/`display_description` mean `name`/`description`."""
    return {"name": values.get("name", values.get("display_name")),
            "description": values.get("description", values.get("display_description"))}


def create(req: ApiRequest) -> ApiResponse:
    body = schemas.given(req.body)
    validate(schemas.CREATE_VOLUME, body)
    policy.authorize(req.ctx, "volume:create")
    values = body["volume"]
    size = int(values["size"]) if "size" in values else None
    sources = [k for k in ("snapshot_id", "source_volid", "imageRef", "image_id")
               if k in values]
    if len(sources) > 1:
        raise errors.InvalidInput(reason=f"Give one source of {', '.join(sources)}, not "
                                         "several.")
    _no_multiattach_flag(values.pop("multiattach", False))
    image = values.pop("imageRef", None)
    volume = volume_api.create(req.ctx, size, {"image_id": image, **values, **names(values)},
                               lambda rule: policy.authorize(req.ctx, rule))
    return ApiResponse(202, {"volume": views.volume(req, volume)})


def _no_multiattach_flag(value: bool | str) -> None:
    """Cinder's: the body's `multiattach` is gone, only false is accepted; a volume
    is multiattach by its type."""
    flag = value if isinstance(value, bool) else strutils.parse_bool(value)
    if flag is None:
        raise HTTPFault(400, f"Value '{value}' for 'multiattach' is not a boolean.")
    if flag:
        raise HTTPFault(400, "multiattach parameter has been removed. The default behavior "
                             "is to use multiattach enabled volume types. Contact your "
                             "administrator to create a multiattach enabled volume type "
                             "and use it to create multiattach volumes.")


def update(req: ApiRequest) -> ApiResponse:
    validate(schemas.UPDATE_VOLUME, req.body)
    found(req, "volume:update")
    values = req.body["volume"]
    changes = {column: value for column, value in (
        ("display_name", names(values)["name"]),
        ("display_description", names(values)["description"]),
        ("volume_metadata", values.get("metadata"))) if value is not None}
    volume = volume_api.update(scope(req), req.params["id"], changes)
    return ApiResponse(200, {"volume": views.volume(req, volume)})


def delete(req: ApiRequest) -> ApiResponse:
    if req.query.get("force", "false").lower() in ("1", "true"):
        raise errors.InvalidInput(reason="force delete is not supported by novalite.")
    if req.query.get("cascade", "false").lower() in ("1", "true"):
        raise errors.InvalidInput(reason="cascade delete is not supported by novalite.")
    volume = found(req, "volume:delete")
    volume_api.delete(req.ctx, scope(req), volume.id)
    return ApiResponse(202)
