"""/snapshots: create, list (summary and detail), show, update and delete. A snapshot
is a full copy of its volume's data (novalite.volume.snapshots)."""

from __future__ import annotations

from typing import Any

from novalite.api import policy
from novalite.api.compute.schemas import validate
from novalite.api.request import ApiRequest, ApiResponse
from novalite.api.volume import listing, schemas, views
from novalite.api.volume.volumes import names, scope
from novalite.db import session
from novalite.strutils import parse_bool
from novalite.volume import api as volume_api
from novalite.volume import errors, snapshots
from novalite.volume.records import Snapshot

FILTERS = ("name", "status", "volume_id", "metadata")
SORT_KEYS = ("id", "name", "status", "created_at", "updated_at", "volume_id")


def _value(snapshot: Snapshot, key: str) -> Any:
    return getattr(snapshot, key)


def _matches(snapshot: Snapshot, filters: dict[str, str]) -> bool:
    for key, wanted in filters.items():
        if key == "metadata":
            expected = listing.dict_filter(key, wanted)
            if any(snapshot.metadata.get(k) != v for k, v in expected.items()):
                return False
        elif str(_value(snapshot, key)) != wanted:
            return False
    return True


def _list(req: ApiRequest, detail: bool) -> ApiResponse:
    policy.authorize(req.ctx, "volume:get_all_snapshots")
    query = listing.parse(req, FILTERS, SORT_KEYS)
    project = None if req.ctx.is_admin and query.all_tenants else req.ctx.project_id
    with session.reader() as s:
        found = [snap for snap in snapshots.list_snapshots(s, project)
                 if _matches(snap, query.filters)]
    shown = listing.page(found, query, _value,
                         lambda marker: errors.SnapshotNotFound(snapshot_id=marker))
    body = [views.snapshot(req, snap, detail) for snap in shown]
    return ApiResponse(200, {"snapshots": body,
                             **listing.next_links(req, "snapshots", body, query)})


def index(req: ApiRequest) -> ApiResponse:
    return _list(req, False)


def detail(req: ApiRequest) -> ApiResponse:
    return _list(req, True)


def found(req: ApiRequest, rule: str) -> Snapshot:
    with session.reader() as s:
        snapshot = snapshots.record(snapshots.get_row(s, req.params["id"], scope(req)))
    policy.authorize(req.ctx, rule, snapshot.project_id)
    return snapshot


def show(req: ApiRequest) -> ApiResponse:
    return ApiResponse(200, {"snapshot": views.snapshot(req, found(req, "volume:get_snapshot"),
                                                        True)})


def create(req: ApiRequest) -> ApiResponse:
    body = schemas.given(req.body)
    validate(schemas.CREATE_SNAPSHOT, body)
    values = body["snapshot"]
    force = parse_bool(values.get("force", False))
    if force is None:
        raise errors.InvalidInput(reason=f"Invalid value '{values['force']}' for force.")
    policy.authorize(req.ctx, "volume:create_snapshot")
    snapshot = volume_api.create_snapshot(req.ctx, scope(req), values["volume_id"],
                                          {**values, **names(values), "force": force})
    return ApiResponse(202, {"snapshot": views.snapshot(req, snapshot, False)})


def update(req: ApiRequest) -> ApiResponse:
    validate(schemas.UPDATE_SNAPSHOT, req.body)
    found(req, "volume:update_snapshot")
    given = names(req.body["snapshot"])
    changes = {column: given[key] for column, key in (("display_name", "name"),
                                                      ("display_description", "description"))
               if given[key] is not None}
    snapshot = volume_api.update_snapshot(scope(req), req.params["id"], changes)
    return ApiResponse(200, {"snapshot": views.snapshot(req, snapshot, True)})


def delete(req: ApiRequest) -> ApiResponse:
    found(req, "volume:delete_snapshot")
    volume_api.delete_snapshot(req.ctx, scope(req), req.params["id"])
    return ApiResponse(202)
