"""POST /snapshots/{id}/action: dispatched on the body's one key, as Cinder does. Served:
`os-update_snapshot_status`, by which Nova reports its share of an assisted snapshot
(novalite.compute.volume_snapshot_steps); Cinder's admin actions answer 501 naming the
action, an unknown one 400."""

from __future__ import annotations

from novalite.api.compute.schemas import validate
from novalite.api.faults import HTTPFault
from novalite.api.request import ApiRequest, ApiResponse
from novalite.api.volume import schemas
from novalite.api.volume.snapshots import found
from novalite.api.volume.volumes import scope
from novalite.volume import api as volume_api
from novalite.volume import errors

UNSERVED = frozenset({"os-reset_status", "os-force_delete", "os-unmanage"})


def _check_progress(progress: str | None) -> None:
    """Cinder's `progress` format: an integer percentage, or nothing."""
    if not progress:
        return
    try:
        percent = int(progress[:-1])
    except ValueError:
        raise errors.InvalidInput(reason="progress must be an integer percentage") from None
    if not 0 <= percent <= 100 or progress[-1] != "%":
        raise errors.InvalidInput(
            reason="progress must be an integer percentage between 0 and 100")


def update_snapshot_status(req: ApiRequest) -> ApiResponse:
    validate(schemas.UPDATE_SNAPSHOT_STATUS, req.body)
    asked = req.body["os-update_snapshot_status"]
    _check_progress(asked.get("progress"))
    snapshot = found(req, "snapshot_extension:snapshot_actions:update_snapshot_status")
    volume_api.update_snapshot_status(scope(req), snapshot.id, asked["status"],
                                      asked.get("progress"))
    return ApiResponse(202)


def action(req: ApiRequest) -> ApiResponse:
    if not isinstance(req.body, dict) or len(req.body) != 1:
        raise HTTPFault(400, "Malformed request body")
    (name,) = req.body
    if name == "os-update_snapshot_status":
        return update_snapshot_status(req)
    if name in UNSERVED:
        raise HTTPFault(501, f"The {name} snapshot action is not implemented by novalite.")
    raise HTTPFault(400, f"There is no such action: {name}")
