"""/resource_providers/{uuid}/aggregates (1.1; the provider generation from 1.19)."""

from __future__ import annotations

from novalite.api.placement import common
from novalite.api.placement.schemas import aggregate as schema
from novalite.api.request import ApiRequest, ApiResponse
from novalite.db import session
from novalite.placement import aggregate
from novalite.placement import resource_provider as rp


def _view(req: ApiRequest, generation: int, uuids: list[str]) -> dict:
    body: dict = {"aggregates": uuids}
    if req.at_least("1.19"):
        body["resource_provider_generation"] = generation
    return body


def _provider(s, req: ApiRequest) -> rp.Provider:
    uuid = req.params["uuid"]
    return rp.get(s, uuid, f"No resource provider with uuid {uuid} found")


@common.handler("placement:resource_providers:aggregates:list", since="1.1")
def index(req: ApiRequest) -> ApiResponse:
    with session.reader() as s:
        provider = _provider(s, req)
        uuids = aggregate.provider_aggregates(s, provider.id)
    return common.cached(req, ApiResponse(200, _view(req, provider.generation, uuids)))


@common.handler("placement:resource_providers:aggregates:update", since="1.1")
def update(req: ApiRequest) -> ApiResponse:
    if req.at_least("1.19"):
        body = common.validate(schema.PUT_V1_19, req.body)
        uuids, generation = body["aggregates"], body["resource_provider_generation"]
    else:
        uuids, generation = common.validate(schema.PUT_V1_1, req.body), None
    with session.writer() as s:
        provider = _provider(s, req)
        new_generation = aggregate.set_provider_aggregates(s, provider, generation, uuids)
    return common.cached(req, ApiResponse(200, _view(req, new_generation, uuids)))
