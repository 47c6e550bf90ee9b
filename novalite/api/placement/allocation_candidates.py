"""GET /allocation_candidates (1.10+): the ways a request for resources can be met, as
allocation bodies ready for PUT /allocations/{consumer}, with a summary of every provider
involved."""

from __future__ import annotations

from novalite.api.placement import allocation_candidates_query as query
from novalite.api.placement import common
from novalite.api.placement.errors import error
from novalite.api.request import ApiRequest, ApiResponse
from novalite.conf import CONF
from novalite.db import session
from novalite.placement import allocation_candidates
from novalite.placement.candidates.request import (
    Options,
    ResourceClassNotFound,
    TraitNotFound,
)


def options() -> Options:
    opts = CONF.placement
    return Options(randomize=opts.randomize_allocation_candidates,
                   max_candidates=opts.max_allocation_candidates,
                   strategy=opts.allocation_candidates_generation_strategy)


@common.handler("placement:allocation_candidates:list", since="1.10")
def list_allocation_candidates(req: ApiRequest) -> ApiResponse:
    groups, params = query.parse(list(req.query.multi_items()), req.version)
    try:
        with session.core_reader() as s:
            body = allocation_candidates.get(s.connection(), groups, params, req.version,
                                             options())
    except ResourceClassNotFound as exc:
        raise error(400, f"Invalid resource class in resources parameter: {exc}") from None
    except TraitNotFound as exc:
        raise error(400, str(exc)) from None
    return common.cached(req, ApiResponse(200, body))
