"""Handlers of /os-services (admin): list, enable/disable (with a reason), force down,
delete.

Before 2.53 a service is named by host and binary in the body of
`PUT /os-services/{action}`; from 2.53 by its uuid in the path, and ids in the views are
uuids. Only compute services may be updated, as in Nova.
"""

from __future__ import annotations

import uuid as uuidlib
from collections.abc import Callable
from typing import Any

from novalite import availability_zones, exception, strutils
from novalite.api import policy
from novalite.api.compute.schemas import services as schema
from novalite.api.compute.schemas import validate
from novalite.api.compute.views import services as view
from novalite.api.faults import HTTPFault
from novalite.api.request import ApiRequest, ApiResponse
from novalite.compute import service_api
from novalite.db.api import services
from novalite.objects.service import Service

RULE = "os_compute_api:os-services:%s"


def _zone(svc: Service) -> str:
    return availability_zones.zone_of(svc, availability_zones.host_zones())


# Services of the other OpenStack services that share the services table (Cinder's
# volume service): Nova's os-services and availability zones never show them.
OTHER_PROJECTS = frozenset({"novalite-volume"})


def index(req: ApiRequest) -> ApiResponse:
    policy.authorize(req.ctx, RULE % "list")
    host, binary = req.query.get("host"), req.query.get("binary")
    zones = availability_zones.host_zones()
    found = [svc for svc in services.service_get_all()
             if (not host or svc.host == host) and (not binary or svc.binary == binary)
             and svc.binary not in OTHER_PROJECTS]
    return ApiResponse(200, {"services": [
        view.service(svc, availability_zones.zone_of(svc, zones), req.version)
        for svc in found]})


def _as_bool(value: Any) -> bool:
    return value if isinstance(value, bool) else strutils.parse_bool(value) is True


def _only_computes(binary: str) -> None:
    if binary != service_api.COMPUTE_BINARY:
        raise HTTPFault(400, f"Updating a {binary} service is not supported. Only "
                             f"{service_api.COMPUTE_BINARY} services can be updated.")


def _by_host_and_binary(host: str, binary: str) -> Service:
    _only_computes(binary)
    try:
        return services.service_get_by_host_and_binary(host, binary)
    except exception.ComputeHostNotFound:
        raise HTTPFault(404, f"Compute host {host} with binary {binary} could not be "
                             "found.") from None


def _enable(req: ApiRequest, body: dict) -> dict:
    svc = _by_host_and_binary(body["host"], body["binary"])
    service_api.update(req.ctx, svc, {"disabled": False, "disabled_reason": None})
    return {"host": svc.host, "binary": svc.binary, "status": "enabled"}


def _disable(req: ApiRequest, body: dict, reason: str | None = None) -> dict:
    svc = _by_host_and_binary(body["host"], body["binary"])
    service_api.update(req.ctx, svc, {"disabled": True, "disabled_reason": reason})
    shown = {"host": svc.host, "binary": svc.binary, "status": "disabled"}
    return {**shown, "disabled_reason": reason} if reason else shown


def _disable_log_reason(req: ApiRequest, body: dict) -> dict:
    if "disabled_reason" not in body:
        raise HTTPFault(400, "Missing disabled reason field")
    return _disable(req, body, body["disabled_reason"])


def _force_down(req: ApiRequest, body: dict) -> dict:
    if "forced_down" not in body:
        raise HTTPFault(400, "Missing forced_down field")
    forced_down = _as_bool(body["forced_down"])
    svc = _by_host_and_binary(body["host"], body["binary"])
    service_api.update(req.ctx, svc, {"forced_down": forced_down})
    return {"host": svc.host, "binary": svc.binary, "forced_down": forced_down}


_ACTIONS: dict[str, Callable[[ApiRequest, dict], dict]] = {
    "enable": _enable, "disable": _disable, "disable-log-reason": _disable_log_reason,
}


def _update_by_action(req: ApiRequest, action_name: str) -> ApiResponse:
    policy.authorize(req.ctx, RULE % "update")
    actions = dict(_ACTIONS)
    if req.at_least("2.11"):
        actions["force-down"] = _force_down
    if action_name not in actions:
        raise HTTPFault(404, "Unknown action")
    return ApiResponse(200, {"service": actions[action_name](req, req.body)})


def _uuid(ident: str) -> str:
    try:
        uuidlib.UUID(ident)
    except ValueError:
        raise HTTPFault(400, f"Invalid uuid {ident}") from None
    return ident


def _changes(body: dict) -> dict[str, object]:
    values: dict[str, object] = {}
    if body.get("status") == "enabled":
        if body.get("disabled_reason"):
            raise HTTPFault(400, "Specifying 'disabled_reason' with status 'enabled' is "
                                 "invalid.")
        values.update(disabled=False, disabled_reason=None)
    elif body.get("status") == "disabled":
        values.update(disabled=True, disabled_reason=body.get("disabled_reason"))
    if "forced_down" in body:
        values["forced_down"] = _as_bool(body["forced_down"])
    if not values:
        raise HTTPFault(400, "No updates were requested. Fields 'status' or "
                             "'forced_down' should be specified.")
    return values


def _update_by_uuid(req: ApiRequest, ident: str) -> ApiResponse:
    _uuid(ident)
    policy.authorize(req.ctx, RULE % "update")
    try:
        svc = services.service_get(ident)
    except exception.ServiceNotFound as exc:
        raise HTTPFault(404, exc.format_message()) from None
    _only_computes(svc.binary)
    updated = service_api.update(req.ctx, svc, _changes(req.body))
    return ApiResponse(200, {"service": view.service(updated, _zone(updated),
                                                     req.version)})


def update(req: ApiRequest) -> ApiResponse:
    validate(schema.update_for(req.version), req.body)
    if req.at_least("2.53"):
        return _update_by_uuid(req, req.params["id"])
    return _update_by_action(req, req.params["id"])


def _ident(req: ApiRequest, ident: str) -> int | str:
    if req.at_least("2.53"):
        return _uuid(ident)
    try:
        return int(ident)
    except ValueError:
        raise HTTPFault(400, "Invalid input received: id must be an integer.") from None


def delete(req: ApiRequest) -> ApiResponse:
    policy.authorize(req.ctx, RULE % "delete")
    ident = req.params["id"]
    try:
        service_api.delete(req.ctx, services.service_get(_ident(req, ident)))
    except exception.ServiceNotFound:
        raise HTTPFault(404, f"Service {ident} not found.") from None
    return ApiResponse(204)
