"""`POST .../action` bodies name their action by their one key, as in Nova."""

from __future__ import annotations

from collections.abc import Callable

from novalite.api import policy
from novalite.api.compute.schemas import validate
from novalite.api.compute.servers import get_instance
from novalite.api.faults import HTTPFault
from novalite.api.request import ApiRequest, ApiResponse
from novalite.objects.instance import Instance

Table = dict[str, Callable[[ApiRequest], ApiResponse]]


def dispatch(req: ApiRequest, table: Table) -> ApiResponse:
    """Run the handler the body's one key names; anything else is one of Nova's 400s."""
    if not isinstance(req.body, dict) or len(req.body) != 1:
        raise HTTPFault(400, "Malformed request body")
    name = next(iter(req.body))
    if name not in table:
        raise HTTPFault(400, f"There is no such action: {name}")
    return table[name](req)


def target(req: ApiRequest, body_schema: dict, rule: str) -> Instance:
    """The server an action acts on, in Nova's order: the body (400), the server in the
    caller's scope (404: another project's does not exist for them), the policy
    `os_compute_api:{rule}` against the server's project (403)."""
    validate(body_schema, req.body)
    instance = get_instance(req)
    policy.authorize(req.ctx, f"os_compute_api:{rule}", instance.project_id)
    return instance
