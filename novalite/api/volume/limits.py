"""/limits: the caller's absolute volume limits and usage (Cinder has no rate limits);
an admin may ask for another project's with `project_id`."""

from __future__ import annotations

from novalite.api import policy
from novalite.api.request import ApiRequest, ApiResponse
from novalite.db import session
from novalite.volume import errors, quotas

# Cinder's absolute limit names: (limit, usage) per resource
NAMES = {"volumes": ("maxTotalVolumes", "totalVolumesUsed"),
         "snapshots": ("maxTotalSnapshots", "totalSnapshotsUsed"),
         "gigabytes": ("maxTotalVolumeGigabytes", "totalGigabytesUsed")}


def index(req: ApiRequest) -> ApiResponse:
    unknown = set(req.query) - {"project_id"}
    if unknown:
        raise errors.InvalidInput(
            reason=f"Invalid filters {','.join(sorted(unknown))} are found in query options.")
    project_id = req.query.get("project_id") or req.ctx.require_project_id()
    policy.authorize(req.ctx, "limits_extension:used_limits", project_id)
    with session.reader() as s:
        limits, used = quotas.limits(s, project_id), quotas.usage(s, project_id)
    absolute: dict[str, int] = {}
    for resource, (limit_name, used_name) in NAMES.items():
        absolute[limit_name] = limits[resource]
        absolute[used_name] = used[resource]
    return ApiResponse(200, {"limits": {"rate": [], "absolute": absolute}})
