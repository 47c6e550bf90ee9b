"""`/servers/{id}/migrations` (admin): the server's live migrations under way, as Nova
lists and shows them (2.23; cold moves never appear here, os-migrations shows those),
forced to complete (2.22) or aborted (2.24; from 2.65 also before the source has
started it)."""

from __future__ import annotations

from novalite import exception
from novalite.api import policy
from novalite.api.compute import actions
from novalite.api.compute.schemas import server_moves as schema
from novalite.api.compute.schemas import validate
from novalite.api.compute.servers import get_instance
from novalite.api.compute.views import migrations as view
from novalite.api.faults import HTTPFault
from novalite.api.request import ApiRequest, ApiResponse
from novalite.compute.moves_api import MoveAPI
from novalite.db.api import migrations
from novalite.objects import migration as mig
from novalite.objects.instance import Instance


def _since(req: ApiRequest, version: str) -> None:
    if not req.at_least(version):
        raise HTTPFault(404, "The resource could not be found.")


def _target(req: ApiRequest, rule: str) -> Instance:
    instance = get_instance(req)
    policy.authorize(req.ctx, f"os_compute_api:servers:migrations:{rule}",
                     instance.project_id)
    return instance


def index(req: ApiRequest) -> ApiResponse:
    _since(req, "2.23")
    instance = _target(req, "index")
    rows = migrations.migrations_list({"instance_uuid": instance.uuid,
                                       "migration_type": mig.LIVE_MIGRATION})
    live = [row for row in rows if row["status"] in view.LIVE_IN_PROGRESS]
    return ApiResponse(200, {"migrations": [view.server_migration(req, r) for r in live]})


def show(req: ApiRequest) -> ApiResponse:
    _since(req, "2.23")
    instance = _target(req, "show")
    migration_id = req.params["migration_id"]
    where = f"{migration_id} for server {instance.uuid}"
    try:
        migration = migrations.migration_get_by_id_and_instance(migration_id, instance.uuid)
    except exception.MigrationNotFoundForInstance:
        raise HTTPFault(404, f"In-progress live migration {where} is not found.") from None
    if migration.migration_type != mig.LIVE_MIGRATION:
        raise HTTPFault(404, f"Migration {where} is not live-migration.")
    if migration.status not in view.LIVE_IN_PROGRESS:
        raise HTTPFault(404, f"Live migration {where} is not in progress.")
    row = migrations.migrations_list({"id": migration.id})[0]
    return ApiResponse(200, {"migration": view.server_migration(req, row)})


def delete(req: ApiRequest) -> ApiResponse:
    _since(req, "2.24")
    instance = _target(req, "delete")
    MoveAPI().live_migrate_abort(req.ctx, instance, req.params["migration_id"],
                                 in_queue=req.at_least("2.65"))
    return ApiResponse(202)


def _force_complete(req: ApiRequest) -> ApiResponse:
    validate(schema.force_complete, req.body)
    instance = _target(req, "force_complete")
    MoveAPI().live_migrate_force_complete(req.ctx, instance, req.params["migration_id"])
    return ApiResponse(202)


def action(req: ApiRequest) -> ApiResponse:
    _since(req, "2.22")
    return actions.dispatch(req, {"force_complete": _force_complete})
