"""/messages (from 3.3): why an asynchronous request on a volume failed, for its owner."""

from __future__ import annotations

from novalite.api import policy
from novalite.api.faults import HTTPFault
from novalite.api.microversion import fmt
from novalite.api.request import ApiRequest, ApiResponse
from novalite.api.volume import listing, views
from novalite.api.volume.volumes import scope
from novalite.db import session
from novalite.volume import errors, messages

FILTERS = ("resource_uuid", "resource_type", "event_id", "request_id", "message_level")
SORT_KEYS = ("id", "created_at", "resource_uuid", "event_id", "message_level")


def _at_3_3(req: ApiRequest) -> None:
    if not req.at_least("3.3"):
        raise HTTPFault(404, f"API version {fmt(req.version)} is not supported on this "
                                 "method.")


def index(req: ApiRequest) -> ApiResponse:
    _at_3_3(req)
    policy.authorize(req.ctx, "message:get_all")
    query = listing.parse(req, FILTERS, SORT_KEYS)
    with session.reader() as s:
        found = messages.list_messages(s, scope(req))
    matching = [m for m in found
                if all(str(getattr(m, k)) == v for k, v in query.filters.items())]
    shown = listing.page(matching, query, lambda m, key: getattr(m, key),
                         lambda marker: errors.MessageNotFound(message_id=marker))
    return ApiResponse(200, {"messages": [views.message(req, m) for m in shown]})


def show(req: ApiRequest) -> ApiResponse:
    _at_3_3(req)
    with session.reader() as s:
        found = messages.record(messages.get_row(s, req.params["id"], scope(req)))
    policy.authorize(req.ctx, "message:get", found.project_id)
    return ApiResponse(200, {"message": views.message(req, found)})


def delete(req: ApiRequest) -> ApiResponse:
    _at_3_3(req)
    with session.writer() as s:
        row = messages.get_row(s, req.params["id"], scope(req))
        policy.authorize(req.ctx, "message:delete", row.project_id)
        s.delete(row)
    return ApiResponse(204)
