"""/resource_providers/{uuid}/usages and GET /usages (1.9; by consumer type from 1.38)."""

from __future__ import annotations

from novalite.api.placement import common
from novalite.api.placement.schemas import usage as schema
from novalite.api.request import ApiRequest, ApiResponse
from novalite.db import session
from novalite.placement import resource_provider as rp
from novalite.placement import usage


@common.handler("placement:resource_providers:usages")
def provider_index(req: ApiRequest) -> ApiResponse:
    uuid = req.params["uuid"]
    with session.reader() as s:
        provider = rp.get(s, uuid, f"No resource provider with uuid {uuid} found")
        usages = usage.for_provider(s, provider.id)
    body = {"resource_provider_generation": provider.generation, "usages": usages}
    return common.cached(req, ApiResponse(200, body))


@common.handler("placement:usages", since="1.9")
def index(req: ApiRequest) -> ApiResponse:
    by_type = req.at_least("1.38")
    params = common.query(req, schema.QUERY_V1_38 if by_type else schema.QUERY_V1_9)
    with session.reader() as s:
        if by_type:
            usages: dict = usage.by_consumer_type(s, params["project_id"],
                                                  params.get("user_id"),
                                                  params.get("consumer_type"))
        else:
            usages = usage.for_project(s, params["project_id"], params.get("user_id"))
    return common.cached(req, ApiResponse(200, {"usages": usages}))
