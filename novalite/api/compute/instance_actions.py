"""Handlers of /servers/{id}/os-instance-actions: what was done to a server, by whom,
and (per policy and microversion) each step's events. From 2.21 a deleted server's
history is still readable; 2.58 pages it and filters it by time."""

from __future__ import annotations

from novalite import exception
from novalite.api import policy
from novalite.api.compute import paging, query
from novalite.api.compute.views import instance_actions as view
from novalite.api.faults import HTTPFault
from novalite.api.request import ApiRequest, ApiResponse
from novalite.db.api import actions, instances
from novalite.objects.instance import Instance

RULE = "os_compute_api:os-instance-actions:%s"


def _instance(req: ApiRequest, rule: str) -> Instance:
    uuid = req.params["server_id"]
    try:
        instance = instances.instance_get(
            uuid, project_id=None if req.ctx.is_admin else req.ctx.project_id,
            read_deleted=req.at_least("2.21"))
    except exception.InstanceNotFound:
        raise HTTPFault(404, f"Instance {uuid} could not be found.") from None
    policy.authorize(req.ctx, RULE % rule, instance.project_id)
    return instance


def _paged(req: ApiRequest, instance: Instance) -> list[dict]:
    query.only(req, ("limit", "marker", "changes-since", "changes-before")
               if req.at_least("2.66") else ("limit", "marker", "changes-since"))
    limit, marker = paging.limit_and_marker(req)
    since, before = query.since_and_before(req)
    try:
        return actions.actions_list(instance.uuid, limit, marker, since, before)
    except exception.MarkerNotFound as exc:
        raise HTTPFault(400, exc.format_message()) from None


def index(req: ApiRequest) -> ApiResponse:
    instance = _instance(req, "list")
    if not req.at_least("2.58"):
        found = actions.actions_list(instance.uuid)
        return ApiResponse(200, {"instanceActions": [view.action(a, req.version)
                                                     for a in found]})
    shown = [view.action(a, req.version) for a in _paged(req, instance)]
    body: dict = {"instanceActions": shown}
    links = paging.next_links(req, f"servers/{instance.uuid}/os-instance-actions", shown,
                              "request_id")
    if links:
        body["links"] = links
    return ApiResponse(200, body)


def _event_options(req: ApiRequest, instance: Instance, project_id: str
                   ) -> view.EventOptions | None:
    """None when the caller sees no events."""
    opts = view.EventOptions(project_id, host_id=req.at_least("2.62"))
    if policy.check(req.ctx, RULE % "events", instance.project_id):
        opts.traceback, opts.host = True, req.at_least("2.62")
    elif not req.at_least("2.51"):
        return None
    opts.details = req.at_least("2.84") and policy.check(
        req.ctx, RULE % "events:details", instance.project_id)
    return opts


def show(req: ApiRequest) -> ApiResponse:
    instance = _instance(req, "show")
    request_id = req.params["request_id"]
    raw = actions.action_get_by_request_id(instance.uuid, request_id)
    if raw is None:
        raise HTTPFault(404, f"Action {request_id} not found")
    shown = view.action(raw, req.version)
    opts = _event_options(req, instance, raw["project_id"] or instance.project_id or "")
    if opts is not None:
        shown["events"] = [view.event(e, opts) for e in raw["events"]]
    return ApiResponse(200, {"instanceAction": shown})
