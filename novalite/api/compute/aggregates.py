"""Handlers of /os-aggregates: host aggregates, admin-only by Nova's default policy.

As in Nova, a body is validated before the policy check, and the policy before the id;
an id must be an integer (400 otherwise); actions are POSTed to /action as one key.
"""

from __future__ import annotations

from novalite import exception
from novalite.api import policy
from novalite.api.compute import actions
from novalite.api.compute.schemas import aggregates as schema
from novalite.api.compute.schemas import validate
from novalite.api.compute.views import aggregates as view
from novalite.api.faults import HTTPFault
from novalite.api.request import ApiRequest, ApiResponse
from novalite.compute.aggregates import AggregateAPI
from novalite.objects.aggregate import Aggregate

_RULE = "os_compute_api:os-aggregates:"
_ID_RANGE = range(-2**31, 2**31)  # the id column; beyond it nothing can be found


def _authorize(req: ApiRequest, action: str) -> None:
    policy.authorize(req.ctx, _RULE + action)


def _id(req: ApiRequest) -> int:
    raw = req.params["id"]
    try:
        value = int(raw)
    except ValueError:
        raise exception.InvalidInput(reason="id must be an integer") from None
    if value not in _ID_RANGE:
        raise exception.AggregateNotFound(aggregate_id=raw)
    return value


def _one(req: ApiRequest, agg: Aggregate) -> ApiResponse:
    return ApiResponse(200, {"aggregate": view.show(agg, req.at_least("2.41"))})


def index(req: ApiRequest) -> ApiResponse:
    _authorize(req, "index")
    uuid = req.at_least("2.41")
    return ApiResponse(200, {"aggregates": [view.show(a, uuid)
                                            for a in AggregateAPI().get_all()]})


def create(req: ApiRequest) -> ApiResponse:
    """200, not 201, and no hosts or metadata in the answer: Nova's, kept for clients."""
    validate(schema.create, req.body)
    _authorize(req, "create")
    body = req.body["aggregate"]
    agg = AggregateAPI().create(body["name"].strip(), body.get("availability_zone"))
    return ApiResponse(200, {"aggregate": view.created(agg, req.at_least("2.41"))})


def show(req: ApiRequest) -> ApiResponse:
    _authorize(req, "show")
    return _one(req, AggregateAPI().get(_id(req)))


def update(req: ApiRequest) -> ApiResponse:
    validate(schema.update, req.body)
    _authorize(req, "update")
    values = dict(req.body["aggregate"])
    if "name" in values:
        values["name"] = values["name"].strip()
    return _one(req, AggregateAPI().update(_id(req), values))


def delete(req: ApiRequest) -> ApiResponse:
    """200 with no body, as Nova answers."""
    _authorize(req, "delete")
    AggregateAPI().delete(_id(req))
    return ApiResponse(200)


def _add_host(req: ApiRequest) -> ApiResponse:
    validate(schema.add_host, req.body)
    _authorize(req, "add_host")
    aggregate_id, host = _id(req), req.body["add_host"]["host"]
    try:
        return _one(req, AggregateAPI().add_host(aggregate_id, host))
    except exception.InvalidAggregateAction as exc:
        raise HTTPFault(409, exc.format_message()) from None


def _remove_host(req: ApiRequest) -> ApiResponse:
    """Whatever is missing (aggregate, host, membership), Nova answers one message."""
    validate(schema.remove_host, req.body)
    _authorize(req, "remove_host")
    host = req.body["remove_host"]["host"]
    try:
        return _one(req, AggregateAPI().remove_host(_id(req), host))
    except exception.NotFound:
        raise HTTPFault(404, f"Cannot remove host {host} in aggregate "
                             f"{req.params['id']}") from None
    except exception.InvalidAggregateAction as exc:
        raise HTTPFault(409, exc.format_message()) from None


def _set_metadata(req: ApiRequest) -> ApiResponse:
    validate(schema.set_metadata, req.body)
    _authorize(req, "set_metadata")
    metadata = req.body["set_metadata"]["metadata"]
    return _one(req, AggregateAPI().update_metadata(_id(req), metadata))


def cache_images(req: ApiRequest) -> ApiResponse:
    """POST /os-aggregates/{id}/images (2.81): the aggregate's hosts download the images
    into their caches ahead of the boots that will need them; 202 before they do."""
    if not req.at_least("2.81"):
        raise HTTPFault(404, "The resource could not be found.")
    validate(schema.cache_images, req.body)
    policy.authorize(req.ctx, "compute:aggregates:images")
    aggregate_id = _id(req)
    image_ids = [image["id"] for image in req.body["cache"]]
    if len(set(image_ids)) != len(image_ids):
        raise HTTPFault(400, "Duplicate images in request")
    api = AggregateAPI()
    aggregate = api.get(aggregate_id)
    try:
        api.cache_images(req.ctx, aggregate, image_ids)
    except exception.NovaliteException as exc:
        raise HTTPFault(400, exc.format_message()) from None
    return ApiResponse(202)


ACTIONS: actions.Table = {"add_host": _add_host, "remove_host": _remove_host,
           "set_metadata": _set_metadata}


def action(req: ApiRequest) -> ApiResponse:
    return actions.dispatch(req, ACTIONS)
