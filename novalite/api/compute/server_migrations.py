"""`GET /servers/{id}/migrations` (2.22+, admin): the server's live migrations under way,
as Nova lists them (cold moves never appear here; os-migrations shows those)."""

from __future__ import annotations

from novalite.api import policy
from novalite.api.compute.servers import get_instance
from novalite.api.compute.views import migrations as view
from novalite.api.faults import HTTPFault
from novalite.api.request import ApiRequest, ApiResponse
from novalite.db.api import migrations


def index(req: ApiRequest) -> ApiResponse:
    if not req.at_least("2.23"):
        raise HTTPFault(404, "The resource could not be found.")
    instance = get_instance(req)
    policy.authorize(req.ctx, "os_compute_api:servers:migrations:index", instance.project_id)
    rows = migrations.migrations_list({"instance_uuid": instance.uuid,
                                       "migration_type": "live-migration"})
    live = [row for row in rows if row["status"] in view.LIVE_IN_PROGRESS]
    return ApiResponse(200, {"migrations": [view.server_migration(req, r) for r in live]})
