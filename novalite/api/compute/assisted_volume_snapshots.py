"""/os-assisted-volume-snapshots: the volume service (a service user, or an admin) asks
the compute to move a guest onto the new file its backend made for a snapshot, or to
merge one away (novalite.compute.volume_snapshots_api). Both are casts, as Nova's: the
answer says the request was taken, and the compute reports the outcome to the volume
service. The instance's state refusals are 400s, not 409s, as Nova keeps them here."""

from __future__ import annotations

import json
from typing import Any

from novalite import exception
from novalite.api import policy
from novalite.api.compute import query
from novalite.api.compute.schemas import assisted_volume_snapshots as schema
from novalite.api.compute.schemas import validate
from novalite.api.faults import HTTPFault
from novalite.api.request import ApiRequest, ApiResponse
from novalite.compute.volume_snapshots_api import VolumeSnapshotAPI

RULE = "os_compute_api:os-assisted-volume-snapshots:%s"


def _refusal(exc: exception.NovaliteException) -> HTTPFault:
    """Nova's 400 text for the refusals of the compute API: an instance state is worded
    as Nova's compute words it, not as its 409s."""
    if isinstance(exc, exception.InstanceInvalidState):
        given = exc.kwargs
        return HTTPFault(400, f"Instance {given['instance_uuid']} in {given['attr']} "
                              f"{given['state']}. Cannot {given['action']} while the "
                              "instance is in this state.")
    return HTTPFault(400, exc.format_message())


_REFUSED = (exception.VolumeBDMNotFound, exception.VolumeBDMIsMultiAttach,
            exception.InvalidVolume, exception.InstanceInvalidState,
            exception.InstanceNotReady)


def create(req: ApiRequest) -> ApiResponse:
    validate(schema.create, req.body)
    policy.authorize_target(req.ctx, RULE % "create", {})
    asked = req.body["snapshot"]
    try:
        snapshot = VolumeSnapshotAPI().create(req.ctx, asked["volume_id"],
                                              asked["create_info"])
    except _REFUSED as exc:
        raise _refusal(exc) from None
    return ApiResponse(200, {"snapshot": snapshot})


def _delete_info(req: ApiRequest) -> dict[str, Any]:
    """The `delete_info` parameter's JSON, which must name the volume; Nova's 400 says
    which key is missing, or why the JSON is not JSON."""
    if "delete_info" not in req.query:
        raise HTTPFault(400, "'delete_info'")
    try:
        delete_info = json.loads(req.query["delete_info"])
    except ValueError as exc:
        raise HTTPFault(400, str(exc)) from None
    if not isinstance(delete_info, dict):
        raise HTTPFault(400, "delete_info must be a JSON object")
    if "volume_id" not in delete_info:
        raise HTTPFault(400, "'volume_id'")
    return delete_info


def delete(req: ApiRequest) -> ApiResponse:
    query.only_from(req, "2.75", ("delete_info",))
    policy.authorize_target(req.ctx, RULE % "delete", {})
    delete_info = _delete_info(req)
    try:
        VolumeSnapshotAPI().delete(req.ctx, str(delete_info["volume_id"]), req.params["id"],
                                   delete_info)
    except _REFUSED as exc:
        raise _refusal(exc) from None
    return ApiResponse(204)
