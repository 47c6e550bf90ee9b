"""`POST .../action` bodies name their action by their one key, as in Nova."""

from __future__ import annotations

from collections.abc import Callable

from novalite.api.faults import HTTPFault
from novalite.api.request import ApiRequest, ApiResponse

Table = dict[str, Callable[[ApiRequest], ApiResponse]]


def dispatch(req: ApiRequest, table: Table) -> ApiResponse:
    """Run the handler the body's one key names; Nova's 400s for anything else."""
    if not isinstance(req.body, dict) or len(req.body) != 1:
        raise HTTPFault(400, "Malformed request body")
    name = next(iter(req.body))
    if name not in table:
        raise HTTPFault(400, f"There is no such action: {name}")
    return table[name](req)
