"""POST /reshaper (1.30): move inventory and allocations atomically."""

from __future__ import annotations

from novalite.api.placement import common
from novalite.api.placement.allocation import claim_from, pick
from novalite.api.placement.schemas import reshaper as schema
from novalite.api.request import ApiRequest, ApiResponse
from novalite.placement import allocation, reshaper
from novalite.placement.inventory import Inventory

_POST = (("1.38", schema.POST_V1_38), ("1.34", schema.POST_V1_34),
         ("1.30", schema.POST_V1_30))


@common.handler("placement:reshaper:reshape", since="1.30")
def reshape(req: ApiRequest) -> ApiResponse:
    body = common.validate(pick(req, _POST), req.body)
    inventories = {
        common.normal_uuid(uuid): (data["resource_provider_generation"],
                                   {name: Inventory.from_body(inv)
                                    for name, inv in data["inventories"].items()})
        for uuid, data in body["inventories"].items()}
    claims = [claim_from(req, common.normal_uuid(c, "consumer_uuid"), data)
              for c, data in body["allocations"].items()]
    allocation.claim(lambda s: reshaper.reshape(s, inventories, claims,
                                                req.at_least("1.26")))
    return ApiResponse(204)
