"""Nova's image metadata proxy, `/images/{id}/metadata[/{key}]` up to 2.38: an image's
properties, changed with the caller's rights in the image service and counted against
the project's `metadata_items` quota, as Nova counts them."""

from __future__ import annotations

import dataclasses

from novalite import exception
from novalite.api.compute import images
from novalite.api.compute.schemas import server_details as schema
from novalite.api.compute.schemas import validate
from novalite.api.faults import HTTPFault
from novalite.api.request import ApiRequest, ApiResponse
from novalite.compute import quotas
from novalite.image import api
from novalite.image.record import ImageRecord

GONE_FROM = "2.39"  # Nova kept this proxy three microversions longer than the others


def _image(req: ApiRequest) -> ImageRecord:
    return images.get_image(req, GONE_FROM)


def _save(req: ApiRequest, image: ImageRecord, properties: dict[str, str]) -> None:
    """Replace the image's properties, within the quota and the caller's rights."""
    images.check_may(req, image, "modify_image", f"Not authorized for image {image.id}.")
    try:
        quotas.check_metadata(properties, req.ctx.project_id)
    except exception.MetadataLimitExceeded:
        raise HTTPFault(403, "Image metadata limit exceeded") from None
    api.update(image, dataclasses.replace(image, properties=properties))


def index(req: ApiRequest) -> ApiResponse:
    return ApiResponse(200, {"metadata": _image(req).properties})


def show(req: ApiRequest) -> ApiResponse:
    properties = _image(req).properties
    key = req.params["key"]
    if key not in properties:
        raise HTTPFault(404, "The resource could not be found.")
    return ApiResponse(200, {"meta": {key: properties[key]}})


def create(req: ApiRequest) -> ApiResponse:
    """Merge the given items into the image's."""
    validate(schema.metadata, req.body)
    image = _image(req)
    merged = {**image.properties, **req.body["metadata"]}
    _save(req, image, merged)
    return ApiResponse(200, {"metadata": merged})


def update_all(req: ApiRequest) -> ApiResponse:
    validate(schema.metadata, req.body)
    image = _image(req)
    _save(req, image, dict(req.body["metadata"]))
    return ApiResponse(200, {"metadata": req.body["metadata"]})


def update(req: ApiRequest) -> ApiResponse:
    validate(schema.meta_item, req.body)
    item = req.body["meta"]
    if req.params["key"] not in item:
        raise HTTPFault(400, "Request body and URI mismatch")
    image = _image(req)
    _save(req, image, {**image.properties, **item})
    return ApiResponse(200, {"meta": item})


def delete(req: ApiRequest) -> ApiResponse:
    image = _image(req)
    key = req.params["key"]
    if key not in image.properties:
        raise HTTPFault(404, "Invalid metadata key")
    _save(req, image, {k: v for k, v in image.properties.items() if k != key})
    return ApiResponse(204)
