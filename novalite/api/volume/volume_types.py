"""/types and their extra specs: every reader lists and shows them, the admin manages
them (Cinder's volume_extension:types_manage). `/types/default` is the type a volume
gets when created without one."""

from __future__ import annotations

from typing import Any

from novalite import strutils
from novalite.api import policy
from novalite.api.compute.schemas import validate
from novalite.api.request import ApiRequest, ApiResponse
from novalite.api.volume import listing, schemas, views
from novalite.db import session
from novalite.volume import errors, volume_types
from novalite.volume.records import VolumeType

SORT_KEYS = ("id", "name", "description", "is_public", "created_at")
MANAGE = "volume_extension:types_manage"


def _reads_specs(req: ApiRequest) -> bool:
    return policy.check(req.ctx, "volume_extension:types_extra_specs:index")


def _bool(name: str, value: Any) -> bool:
    parsed = value if isinstance(value, bool) else strutils.parse_bool(value)
    if parsed is None:
        raise errors.InvalidInput(reason=f"{name} must be a boolean: {value}")
    return parsed


def index(req: ApiRequest) -> ApiResponse:
    policy.authorize(req.ctx, "volume_extension:type_get_all")
    query = listing.parse(req, ("is_public",), SORT_KEYS)
    public = query.filters.get("is_public")
    is_public = None if public is None or public.lower() == "none" else _bool("is_public",
                                                                             public)
    if not req.ctx.is_admin:
        is_public = True
    with session.reader() as s:
        found = volume_types.list_types(s, is_public)
    shown = listing.page(found, query, lambda t, key: getattr(t, key),
                         lambda marker: errors.VolumeTypeNotFound(volume_type_id=marker))
    specs = _reads_specs(req)
    return ApiResponse(200, {"volume_types": [views.volume_type(req, t, specs) for t in shown]})


def _get(type_id: str) -> VolumeType:
    with session.reader() as s:
        if type_id == "default":
            return volume_types.default(s)
        return volume_types.record(s, volume_types.get_row(s, type_id))


def show(req: ApiRequest) -> ApiResponse:
    policy.authorize(req.ctx, "volume_extension:type_get")
    vtype = _get(req.params["id"])
    return ApiResponse(200, {"volume_type": views.volume_type(req, vtype, _reads_specs(req))})


def create(req: ApiRequest) -> ApiResponse:
    validate(schemas.CREATE_TYPE, req.body)
    policy.authorize(req.ctx, MANAGE)
    values = req.body["volume_type"]
    is_public = _bool("is_public", values.get("os-volume-type-access:is_public", True))
    if not is_public:
        raise errors.InvalidInput(reason="private volume types are not supported by "
                                         "novalite.")
    with session.writer() as s:
        vtype = volume_types.create(s, values["name"].strip(), values.get("description"),
                                    is_public, values.get("extra_specs", {}))
    return ApiResponse(200, {"volume_type": views.volume_type(req, vtype, True)})


def update(req: ApiRequest) -> ApiResponse:
    validate(schemas.UPDATE_TYPE, req.body)
    policy.authorize(req.ctx, MANAGE)
    values = req.body["volume_type"]
    if "is_public" in values and not _bool("is_public", values["is_public"]):
        raise errors.InvalidInput(reason="private volume types are not supported by "
                                         "novalite.")
    changes = {k: values[k] for k in ("name", "description") if values.get(k) is not None}
    if not changes and "is_public" not in values:
        raise errors.InvalidInput(reason="Specify volume type name, description, "
                                         "is_public or a combination thereof.")
    with session.writer() as s:
        vtype = volume_types.update(s, req.params["id"], changes)
    return ApiResponse(200, {"volume_type": views.volume_type(req, vtype, True)})


def delete(req: ApiRequest) -> ApiResponse:
    policy.authorize(req.ctx, MANAGE)
    with session.writer() as s:
        if volume_types.get_row(s, req.params["id"]).name == volume_types.DEFAULT_TYPE_NAME:
            raise errors.InvalidInput(reason="Default volume type can not be deleted.")
        volume_types.delete_type(s, req.params["id"])
    return ApiResponse(202)


def specs_index(req: ApiRequest) -> ApiResponse:
    policy.authorize(req.ctx, "volume_extension:types_extra_specs:index")
    return ApiResponse(200, {"extra_specs": _get(req.params["id"]).extra_specs})


def specs_create(req: ApiRequest) -> ApiResponse:
    validate(schemas.EXTRA_SPECS, req.body)
    policy.authorize(req.ctx, "volume_extension:types_extra_specs:create")
    with session.writer() as s:
        volume_types.check_specs_change(s, req.params["id"], req.body["extra_specs"])
        specs = volume_types.set_extra_specs(s, req.params["id"], req.body["extra_specs"])
    return ApiResponse(200, {"extra_specs": specs})


def _spec_value(req: ApiRequest) -> str:
    specs = _get(req.params["id"]).extra_specs
    if req.params["key"] not in specs:
        raise errors.VolumeTypeExtraSpecsNotFound(volume_type_id=req.params["id"],
                                                  extra_specs_key=req.params["key"])
    return specs[req.params["key"]]


def specs_show(req: ApiRequest) -> ApiResponse:
    policy.authorize(req.ctx, "volume_extension:types_extra_specs:show")
    return ApiResponse(200, {req.params["key"]: _spec_value(req)})


def specs_update(req: ApiRequest) -> ApiResponse:
    policy.authorize(req.ctx, "volume_extension:types_extra_specs:update")
    key = req.params["key"]
    body = req.body
    if not isinstance(body, dict) or list(body) != [key] or not isinstance(body[key], str):
        raise errors.InvalidInput(reason="Request body and URI mismatch")
    with session.writer() as s:
        volume_types.check_specs_change(s, req.params["id"], body)
        volume_types.set_extra_specs(s, req.params["id"], body)
    return ApiResponse(200, body)


def specs_delete(req: ApiRequest) -> ApiResponse:
    policy.authorize(req.ctx, "volume_extension:types_extra_specs:delete")
    with session.writer() as s:
        volume_types.check_specs_change(s, req.params["id"], {})
        volume_types.delete_extra_spec(s, req.params["id"], req.params["key"])
    return ApiResponse(202)
