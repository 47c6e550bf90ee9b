"""The block storage API's route table (Cinder v3): (path, method, handler, authenticated).

Every path is served twice: under /v3/{project_id} (the project must be the caller's, as
Cinder checks) and under /v3 alone (Cinder's 3.67 form; both forms at every version, as
Cinder's router serves them). Errors are Cinder's fault bodies, the same shape as Nova's."""

from __future__ import annotations

from starlette.responses import Response

from novalite.api import faults
from novalite.api.faults import HTTPFault
from novalite.api.profile import ApiProfile
from novalite.api.request import ApiRequest, ApiResponse, Handler
from novalite.api.volume import (
    attachments,
    limits,
    messages,
    microversions,
    quota_sets,
    scheduler_stats,
    snapshot_actions,
    snapshots,
    unserved,
    versions,
    volume_actions,
    volume_metadata,
    volume_types,
    volumes,
)


def _fault(error: HTTPFault, request_id: str) -> Response:
    return faults.fault_response(error.code, error.message)


PROFILE = ApiProfile(mount="/volume", fault=_fault, negotiate=microversions.negotiate,
                     version_headers=microversions.response_headers)

_TYPE = "/types/{id}"
SERVED: list[tuple[str, str, Handler]] = [
    ("/volumes", "GET", volumes.index),
    ("/volumes", "POST", volumes.create),
    ("/volumes/detail", "GET", volumes.detail),
    ("/volumes/{id}", "GET", volumes.show),
    ("/volumes/{id}", "PUT", volumes.update),
    ("/volumes/{id}", "DELETE", volumes.delete),
    ("/volumes/{id}/action", "POST", volume_actions.action),
    ("/volumes/{id}/metadata", "GET", volume_metadata.index),
    ("/volumes/{id}/metadata", "POST", volume_metadata.create),
    ("/volumes/{id}/metadata", "PUT", volume_metadata.replace),
    ("/volumes/{id}/metadata/{key}", "GET", volume_metadata.show),
    ("/volumes/{id}/metadata/{key}", "PUT", volume_metadata.update),
    ("/volumes/{id}/metadata/{key}", "DELETE", volume_metadata.delete),
    ("/snapshots", "GET", snapshots.index),
    ("/snapshots", "POST", snapshots.create),
    ("/snapshots/detail", "GET", snapshots.detail),
    ("/snapshots/{id}", "GET", snapshots.show),
    ("/snapshots/{id}", "PUT", snapshots.update),
    ("/snapshots/{id}", "DELETE", snapshots.delete),
    ("/snapshots/{id}/action", "POST", snapshot_actions.action),
    ("/types", "GET", volume_types.index),
    ("/types", "POST", volume_types.create),
    (_TYPE, "GET", volume_types.show),
    (_TYPE, "PUT", volume_types.update),
    (_TYPE, "DELETE", volume_types.delete),
    (f"{_TYPE}/extra_specs", "GET", volume_types.specs_index),
    (f"{_TYPE}/extra_specs", "POST", volume_types.specs_create),
    (_TYPE + "/extra_specs/{key}", "GET", volume_types.specs_show),
    (_TYPE + "/extra_specs/{key}", "PUT", volume_types.specs_update),
    (_TYPE + "/extra_specs/{key}", "DELETE", volume_types.specs_delete),
    ("/os-quota-sets/{target}", "GET", quota_sets.show),
    ("/os-quota-sets/{target}", "PUT", quota_sets.update),
    ("/os-quota-sets/{target}", "DELETE", quota_sets.delete),
    ("/os-quota-sets/{target}/defaults", "GET", quota_sets.defaults),
    ("/limits", "GET", limits.index),
    ("/scheduler-stats/get_pools", "GET", scheduler_stats.get_pools),
    ("/messages", "GET", messages.index),
    ("/messages/{id}", "GET", messages.show),
    ("/messages/{id}", "DELETE", messages.delete),
    ("/attachments", "GET", attachments.index),
    ("/attachments", "POST", attachments.create),
    ("/attachments/detail", "GET", attachments.detail),
    ("/attachments/{id}", "GET", attachments.show),
    ("/attachments/{id}", "PUT", attachments.update),
    ("/attachments/{id}", "DELETE", attachments.delete),
    ("/attachments/{id}/action", "POST", attachments.action),
]


def _in_project(handler: Handler) -> Handler:
    """The handler for a URL naming a project: the caller's own, or Cinder's 400."""
    def run(req: ApiRequest) -> ApiResponse:
        if req.params.pop("project_id") != req.ctx.project_id:
            raise HTTPFault(400, "Malformed request url")
        return handler(req)
    return run


def _both_forms(table: list[tuple[str, str, Handler]]) -> list[tuple[str, str, Handler, bool]]:
    return [*((f"/v3{path}", method, handler, True) for path, method, handler in table),
            *((f"/v3/{{project_id}}{path}", method, _in_project(handler), True)
              for path, method, handler in table)]


_ALL = SERVED + unserved.routes({(path, method) for path, method, _ in SERVED})

ROUTES = [
    ("/", "GET", versions.root, False),
    ("/v3", "GET", versions.index, False),
    ("/v3/", "GET", versions.index, False),
    *_both_forms(_ALL),
]
