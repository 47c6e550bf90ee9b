"""/scheduler-stats/get_pools (the admin's): each volume service's backend as a Cinder
pool, with its capacity (`?detail=True`), so `openstack volume backend pool list --long`
shows what the backends hold and have left. Capacity is [DEFAULT]
volume_backend_capacity_gb less what the pool's volumes and snapshots hold."""

from __future__ import annotations

from typing import Any

from novalite import strutils
from novalite.api import policy
from novalite.api.request import ApiRequest, ApiResponse
from novalite.api.volume import views
from novalite.conf import CONF
from novalite.db import session
from novalite.db.api import services
from novalite.timeutils import utcnow
from novalite.volume import capacity, errors
from novalite.volume.rpcapi import BINARY


def _capabilities(found: capacity.Capacity) -> dict[str, Any]:
    return {"pool_name": CONF.volume_backend_name,
            "volume_backend_name": CONF.volume_backend_name,
            "total_capacity_gb": found.total_gb, "free_capacity_gb": found.free_gb,
            "allocated_capacity_gb": found.allocated_gb,
            "reserved_percentage": CONF.reserved_percentage,
            "storage_protocol": "file", "vendor_name": "novalite", "driver_version": "1.0",
            "thin_provisioning_support": True, "thick_provisioning_support": False,
            "multiattach": True, "QoS_support": False,
            "timestamp": views.timestamp(utcnow())}


def get_pools(req: ApiRequest) -> ApiResponse:
    policy.authorize(req.ctx, "scheduler_extension:scheduler_stats:get_pools")
    unknown = set(req.query) - {"detail"}
    if unknown:
        raise errors.InvalidInput(
            reason=f"Invalid filters {','.join(sorted(unknown))} are found in query options.")
    detail = strutils.parse_bool(req.query.get("detail", "false"))
    if detail is None:
        raise errors.InvalidInput(reason=f"Invalid value '{req.query['detail']}' for detail")
    pools = sorted(capacity.pool_name(svc.host) for svc in services.service_get_all(BINARY))
    if not detail:
        return ApiResponse(200, {"pools": [{"name": pool} for pool in pools]})
    with session.reader() as s:
        return ApiResponse(200, {"pools": [
            {"name": pool, "capabilities": _capabilities(capacity.of_pool(s, pool))}
            for pool in pools]})
