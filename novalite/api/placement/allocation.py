"""/allocations/{consumer_uuid}, POST /allocations (1.13) and a provider's allocations."""

from __future__ import annotations

from novalite.api.placement import common
from novalite.api.placement.errors import error
from novalite.api.placement.schemas import allocation as schema
from novalite.api.request import ApiRequest, ApiResponse
from novalite.db import session
from novalite.placement import allocation, consumer
from novalite.placement import resource_provider as rp
from novalite.placement.allocation import Claim

_PUT = (("1.38", schema.PUT_V1_38), ("1.34", schema.PUT_V1_34), ("1.28", schema.PUT_V1_28),
        ("1.12", schema.PUT_V1_12), ("1.8", schema.PUT_V1_8), ("1.0", schema.PUT_V1_0))
_POST = (("1.38", schema.POST_V1_38), ("1.34", schema.POST_V1_34),
         ("1.28", schema.POST_V1_28), ("1.13", schema.POST_V1_13))


def pick(req: ApiRequest, table: tuple) -> dict:
    return next(found for version, found in table if req.at_least(version))


def _resources(allocations: list | dict) -> dict[str, dict[str, int]]:
    """{provider uuid: {class: amount}} from either body form (list before 1.12)."""
    if isinstance(allocations, dict):
        return {rp_uuid: dict(a["resources"]) for rp_uuid, a in allocations.items()}
    merged: dict[str, dict[str, int]] = {}
    for a in allocations:
        merged.setdefault(a["resource_provider"]["uuid"], {}).update(a["resources"])
    return merged


def claim_from(req: ApiRequest, consumer_uuid: str, body: dict) -> Claim:
    return Claim(consumer_uuid=consumer_uuid, resources=_resources(body["allocations"]),
                 project_id=body.get("project_id"), user_id=body.get("user_id"),
                 generation=body.get("consumer_generation"),
                 check_generation=req.at_least("1.28"),
                 consumer_type=body.get("consumer_type"))


@common.handler("placement:allocations:update")
def update(req: ApiRequest) -> ApiResponse:
    consumer_uuid = common.normal_uuid(req.params["consumer_uuid"], "consumer_uuid")
    body = common.validate(pick(req, _PUT), req.body)
    claim = claim_from(req, consumer_uuid, body)
    allocation.claim(lambda s: allocation.replace(s, [claim]))
    return ApiResponse(204)


@common.handler("placement:allocations:manage", since="1.13")
def create_many(req: ApiRequest) -> ApiResponse:
    body = common.validate(pick(req, _POST), req.body)
    claims = [claim_from(req, common.normal_uuid(c, "consumer_uuid"), data)
              for c, data in body.items()]
    allocation.claim(lambda s: allocation.replace(s, claims))
    return ApiResponse(204)


@common.handler("placement:allocations:list")
def show(req: ApiRequest) -> ApiResponse:
    consumer_uuid = common.normal_uuid(req.params["consumer_uuid"], "consumer_uuid")
    with session.reader() as s:
        allocations = allocation.for_consumer(s, consumer_uuid)
        owner = consumer.find(s, consumer_uuid)
    body: dict = {"allocations": allocations}
    if allocations and owner is not None:
        if req.at_least("1.12"):
            body["project_id"], body["user_id"] = owner.project_id, owner.user_id
        if req.at_least("1.28"):
            body["consumer_generation"] = owner.generation
        if req.at_least("1.38"):
            body["consumer_type"] = owner.consumer_type or consumer.UNKNOWN_TYPE
    return common.cached(req, ApiResponse(200, body))


@common.handler("placement:allocations:delete")
def delete(req: ApiRequest) -> ApiResponse:
    consumer_uuid = common.normal_uuid(req.params["consumer_uuid"], "consumer_uuid")
    if not allocation.claim(lambda s: allocation.delete_consumer(s, consumer_uuid)):
        raise error(404, f"No allocations for consumer '{consumer_uuid}'")
    return ApiResponse(204)


@common.handler("placement:resource_providers:allocations:list")
def provider_index(req: ApiRequest) -> ApiResponse:
    uuid = req.params["uuid"]
    with session.reader() as s:
        provider = rp.get(s, uuid, f"Resource provider '{uuid}' not found: No resource "
                                   f"provider with uuid {uuid} found")
        allocations = allocation.for_provider(s, provider.id)
    body = {"allocations": allocations, "resource_provider_generation": provider.generation}
    return common.cached(req, ApiResponse(200, body))
