"""Nova's image proxy, `/images` and `/images/{id}/metadata` up to microversion 2.35:
the image service's images in Nova's old shapes, for the clients (and Tempest tests) of
that age. As Nova's proxy does, it acts with the caller's own rights in the image service
(Glance's policies), lists with Glance's defaults (newest first) and maps Glance's states
to Nova's (queued and saving are SAVING, killed is ERROR)."""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import Any

from novalite.api.compute import paging, query
from novalite.api.compute.networks import MAX_PROXY_VERSION
from novalite.api.compute.views import images as view
from novalite.api.faults import HTTPFault
from novalite.api.image.authorize import authorize
from novalite.api.request import ApiRequest, ApiResponse
from novalite.image import api, errors
from novalite.image.record import ImageRecord

NOT_FOUND = "Image not found."
_NOT_DELETABLE = "You are not allowed to delete the image."


def get_image(req: ApiRequest, gone_from: str = MAX_PROXY_VERSION) -> ImageRecord:
    """The image of the path if the caller sees it (Nova's 404 otherwise, as from the
    microversion `gone_from` on)."""
    if req.at_least(gone_from):
        raise HTTPFault(404, "The resource could not be found.")
    try:
        image = api.get(req.ctx, req.params["image_id"])
        authorize(req.ctx, "get_image")
    except (errors.ImageNotFound, errors.Forbidden):
        raise HTTPFault(404, NOT_FOUND) from None
    return image


def check_may(req: ApiRequest, image: ImageRecord, rule: str, refusal: str) -> None:
    """Glance's owner-scoped policy `rule`, refused with Nova's proxy text."""
    try:
        authorize(req.ctx, rule, image.owner or "")
    except errors.Forbidden:
        raise HTTPFault(403, refusal) from None


def _min(name: str, attr: str) -> Callable[[str], Callable[[ImageRecord], bool]]:
    def build(value: str) -> Callable[[ImageRecord], bool]:
        try:
            least = int(value)
        except ValueError:
            raise HTTPFault(400, f"Invalid {name} filter [{value}]") from None
        return lambda image: getattr(image, attr) >= least
    return build


def _changes_since(value: str) -> Callable[[ImageRecord], bool]:
    since = query.parse_timestamp("changes-since", value)
    return lambda image: (image.updated_at or image.created_at or datetime.datetime.min
                          ) >= since


# Nova's filters (query name -> a predicate from its value); property-<key> besides.
_FILTERS: dict[str, Callable[[str], Callable[[ImageRecord], bool]]] = {
    "name": lambda v: lambda image: image.name == v,
    "status": lambda v: lambda image: image.status == v.lower(),
    "changes-since": _changes_since,
    "server": lambda v: lambda image: image.properties.get("instance_uuid") ==
    v.rsplit("/", 1)[-1],
    "type": lambda v: lambda image: image.properties.get("image_type") == v,
    "minRam": _min("minRam", "min_ram"),
    "minDisk": _min("minDisk", "min_disk"),
}


def _property(key: str) -> Callable[[str], Callable[[ImageRecord], bool]]:
    return lambda value: lambda image: image.properties.get(key) == value


def _predicates(req: ApiRequest) -> list[Callable[[ImageRecord], bool]]:
    found = []
    for name, value in req.query.items():
        if name in _FILTERS:
            found.append(_FILTERS[name](value))
        elif name.startswith("property-"):
            found.append(_property(name.removeprefix("property-"))(value))
    return found


def _listed(req: ApiRequest) -> list[ImageRecord]:
    if req.at_least(MAX_PROXY_VERSION):
        raise HTTPFault(404, "The resource could not be found.")
    authorize(req.ctx, "get_images")
    predicates = _predicates(req)
    found = [i for i in api.get_all(req.ctx, None, "accepted")
             if all(p(i) for p in predicates)]
    found.sort(key=lambda i: (i.created_at or datetime.datetime.min, i.id), reverse=True)
    limit, marker = paging.limit_and_marker(req)
    start = 0
    if marker is not None:
        ids = [i.id for i in found]
        if marker not in ids:
            raise HTTPFault(400, f"Invalid marker. Image {marker} could not be found.")
        start = ids.index(marker) + 1
    return found[start:start + limit]


def _page(req: ApiRequest, collection: str, shown: list[dict[str, Any]]) -> dict:
    body: dict[str, Any] = {"images": shown}
    links = paging.next_links(req, collection, shown, "id")
    if links:
        body["images_links"] = links
    return body


def index(req: ApiRequest) -> ApiResponse:
    return ApiResponse(200, _page(req, "images", [view.basic(i, req.base_url)
                                                   for i in _listed(req)]))


def detail(req: ApiRequest) -> ApiResponse:
    return ApiResponse(200, _page(req, "images/detail", [view.detail(i, req.base_url)
                                                          for i in _listed(req)]))


def show(req: ApiRequest) -> ApiResponse:
    return ApiResponse(200, {"image": view.detail(get_image(req), req.base_url)})


def delete(req: ApiRequest) -> ApiResponse:
    image = get_image(req)
    check_may(req, image, "delete_image", _NOT_DELETABLE)
    try:
        api.delete(image)
    except errors.Protected:
        raise HTTPFault(403, _NOT_DELETABLE) from None
    except errors.ImageNotFound:
        raise HTTPFault(404, NOT_FOUND) from None
    return ApiResponse(204)
