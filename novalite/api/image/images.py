"""Handlers of /v2/images: list, create, show, update (JSON patch), delete, and the
deactivate/reactivate actions (Glance's images controller)."""

from __future__ import annotations

from urllib.parse import urlencode

from novalite.api.faults import HTTPFault
from novalite.api.image.authorize import authorize
from novalite.api.image.schemas import image as schema
from novalite.api.image.views import images as view
from novalite.api.request import ApiRequest, ApiResponse
from novalite.conf import CONF
from novalite.context import RequestContext
from novalite.image import api, listing, patch, visibility
from novalite.image.record import READ_ONLY, RESERVED, ImageRecord

_MEMBER_STATUSES = (*visibility.MEMBER_STATUSES, "all")
_VISIBILITIES = (*visibility.VISIBILITIES, "all")


def owned_image(req: ApiRequest, rule: str) -> ImageRecord:
    """The image of the path, if the caller sees it and passes an owner-scoped `rule`."""
    image = api.get(req.ctx, req.params["image_id"])
    authorize(req.ctx, rule, image.owner or "")
    return image


def _list_filters(req: ApiRequest) -> tuple[str | None, str]:
    found = req.query.get("visibility")
    if found is not None and found not in _VISIBILITIES:
        raise HTTPFault(400, f"Invalid visibility value: {found}")
    member_status = req.query.get("member_status", "accepted")
    if member_status not in _MEMBER_STATUSES:
        raise HTTPFault(400, f"Invalid status: {member_status}")
    if "changes-since" in req.query:
        raise HTTPFault(400, 'The "changes-since" filter is no longer available on v2.')
    return found, member_status


def _links(req: ApiRequest, next_marker: str | None) -> dict[str, str]:
    """Glance's `first` and `next`: this request's query without / with the marker."""
    params = [(k, v) for k, v in req.query.multi_items() if k != "marker"]
    links = {"first": "/v2/images" + (f"?{urlencode(params)}" if params else "")}
    if next_marker:
        links["next"] = f"/v2/images?{urlencode([*params, ('marker', next_marker)])}"
    return links


def index(req: ApiRequest) -> ApiResponse:
    authorize(req.ctx, "get_images")
    shown, member_status = _list_filters(req)
    query = listing.parse(req.query, CONF.limit_param_default, CONF.api_limit_max)
    found, next_marker = listing.page(api.get_all(req.ctx, shown, member_status), query)
    return ApiResponse(200, {"images": [view.show(i) for i in found],
                             "schema": "/v2/schemas/images", **_links(req, next_marker)})


def _check_visibility(ctx: RequestContext, image: ImageRecord) -> None:
    if image.visibility == "public":
        authorize(ctx, "publicize_image")
    elif image.visibility == "community":
        authorize(ctx, "communitize_image", image.owner or "")


def _new_image(body: object) -> ImageRecord:
    if not isinstance(body, dict):
        raise HTTPFault(400, "Body expected in request.")
    for key in body:
        if key in READ_ONLY:
            raise HTTPFault(403, f"Attribute '{key}' is read-only.")
        if key in RESERVED or key.startswith(patch.RESERVED_NAMESPACE):
            raise HTTPFault(403, f"Attribute '{key}' is reserved.")
        if len(key) > 255:
            raise HTTPFault(400, "Custom property should not be greater than 255 "
                                 "characters.")
    schema.validate(body)
    values = dict(body)
    base = {k: values.pop(k) for k in ImageRecord.__dataclass_fields__ if k in values}
    return ImageRecord(**{"id": "", **base, "properties": values})


def create(req: ApiRequest) -> ApiResponse:
    image = _new_image(req.body)
    if image.owner and image.owner != req.ctx.project_id and not req.ctx.is_admin:
        raise HTTPFault(403, f"You are not permitted to create images owned by "
                             f"'{image.owner}'.")
    image.owner = image.owner or req.ctx.project_id
    authorize(req.ctx, "add_image", image.owner)
    _check_visibility(req.ctx, image)
    created = api.create(req.ctx, image)
    return ApiResponse(201, view.show(created), {"Location": view.href(created.id)})


def show(req: ApiRequest) -> ApiResponse:
    authorize(req.ctx, "get_image")
    return ApiResponse(200, view.show(api.get(req.ctx, req.params["image_id"])))


def _media_type(req: ApiRequest) -> str:
    media_type = (req.headers.get("content-type") or "").split(";")[0].strip()
    if media_type not in patch.MEDIA_TYPES:
        raise HTTPFault(415, f"Unsupported Content-Type. Use one of: "
                             f"{', '.join(sorted(patch.MEDIA_TYPES))}")
    return media_type


def update(req: ApiRequest) -> ApiResponse:
    media_type = _media_type(req)
    changes = patch.parse(req.body, media_type)
    image = owned_image(req, "modify_image")
    changed = patch.apply(image, changes, patch.MEDIA_TYPES[media_type])
    if changed.owner != image.owner and not req.ctx.is_admin:
        raise HTTPFault(403, "Owner can't be updated by non admin.")
    if changed.visibility != image.visibility:
        _check_visibility(req.ctx, changed)
    schema.validate({k: v for k, v in view.show(changed).items()
                     if k not in READ_ONLY and k != "id" and v is not None})
    return ApiResponse(200, view.show(api.update(image, changed)))


def delete(req: ApiRequest) -> ApiResponse:
    api.delete(owned_image(req, "delete_image"))
    return ApiResponse(204)


def deactivate(req: ApiRequest) -> ApiResponse:
    image = api.get(req.ctx, req.params["image_id"])
    authorize(req.ctx, "deactivate")
    api.deactivate(image)
    return ApiResponse(204)


def reactivate(req: ApiRequest) -> ApiResponse:
    image = api.get(req.ctx, req.params["image_id"])
    authorize(req.ctx, "reactivate")
    api.reactivate(image)
    return ApiResponse(204)
