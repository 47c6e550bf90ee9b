"""The move actions of `POST /servers/{id}/action`: resize, migrate (cold),
os-migrateLive, confirmResize and revertResize, in Nova's order (body 400, scope 404,
policy 403, state 409)."""

from __future__ import annotations

from novalite import strutils
from novalite.api import policy
from novalite.api.compute import actions
from novalite.api.compute.schemas import server_moves as schema
from novalite.api.compute.servers import new_password
from novalite.api.faults import HTTPFault
from novalite.api.request import ApiRequest, ApiResponse
from novalite.compute.moves_api import MoveAPI
from novalite.db.api import compute_nodes


def resize(req: ApiRequest) -> ApiResponse:
    """`OS-DCF:diskConfig` is validated as Nova does; the fake and qemu drivers have no
    partition to grow, so either value means the same."""
    instance = actions.target(req, schema.resize, "servers:resize")
    MoveAPI().resize(req.ctx, instance, str(req.body["resize"]["flavorRef"]))
    return ApiResponse(202)


def migrate(req: ApiRequest) -> ApiResponse:
    body_schema = schema.migrate_v2_56 if req.at_least("2.56") else schema.migrate
    instance = actions.target(req, body_schema, "os-migrate-server:migrate")
    host = (req.body["migrate"] or {}).get("host")
    if host is not None:
        policy.authorize(req.ctx, "os_compute_api:os-migrate-server:migrate:host",
                         instance.project_id)
    MoveAPI().migrate(req.ctx, instance, host)
    return ApiResponse(202)


def live_migrate(req: ApiRequest) -> ApiResponse:
    """`block_migration` (true, false or, from 2.25, "auto") and `disk_over_commit`
    (until 2.24) are validated as Nova does; the fake driver copies no disks and Nova's
    libvirt driver ignores disk_over_commit, so neither changes what happens."""
    instance = actions.target(req, schema.migrate_live_for(req.version),
                       "os-migrate-server:migrate_live")
    body = req.body["os-migrateLive"]
    force = str(body.get("force", False)).lower() in ("true", "1")
    MoveAPI().live_migrate(req.ctx, instance, body.get("host"), body["block_migration"],
                           force)
    return ApiResponse(202)


def evacuate(req: ApiRequest) -> ApiResponse:
    """Before 2.14 the answer carries the admin password; `onSharedStorage` true is
    refused: novalite's hosts share no storage, so the server is always rebuilt from
    its image."""
    instance = actions.target(req, schema.evacuate_for(req.version), "os-evacuate")
    body = req.body["evacuate"]
    host = body.get("host")
    force = str(body.get("force", False)).lower() in ("true", "1")
    if force and not host:
        raise HTTPFault(400, "Can't force to a non-provided destination")
    if strutils.parse_bool(str(body.get("onSharedStorage", False))):
        raise HTTPFault(400, "onSharedStorage is not supported by novalite: its hosts "
                             "share no storage; evacuate with onSharedStorage false")
    if host is not None:
        if not compute_nodes.compute_node_get_by_host(host):
            raise HTTPFault(404, f"Compute host {host} not found.")
        if host == instance.host:
            raise HTTPFault(400, "The target host can't be the same one.")
    MoveAPI().evacuate(req.ctx, instance, host, force, stopped=req.at_least("2.95"))
    if req.at_least("2.14"):
        return ApiResponse(200)
    return ApiResponse(200, {"adminPass": body.get("adminPass") or new_password()})


def confirm_resize(req: ApiRequest) -> ApiResponse:
    instance = actions.target(req, schema.confirm_resize, "servers:confirm_resize")
    MoveAPI().confirm_resize(req.ctx, instance)
    return ApiResponse(204)


def revert_resize(req: ApiRequest) -> ApiResponse:
    instance = actions.target(req, schema.revert_resize, "servers:revert_resize")
    MoveAPI().revert_resize(req.ctx, instance)
    return ApiResponse(202)
