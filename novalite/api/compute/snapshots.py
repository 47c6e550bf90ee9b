"""Nova's volume snapshot proxy, `/os-snapshots` up to microversion 2.35: the caller's
snapshots in the volume service, in Nova's old shape."""

from __future__ import annotations

from typing import Any

from novalite.api.compute import volume_proxy
from novalite.api.compute.networks import check_proxy_version
from novalite.api.compute.schemas import validate
from novalite.api.compute.schemas import volumes as schema
from novalite.api.request import ApiRequest, ApiResponse

_TRUE = {"true", "1", "on", "yes"}


def view(snapshot: dict[str, Any]) -> dict[str, Any]:
    """Nova's _translate_snapshot_summary_view (the detail view is the same)."""
    return {"id": snapshot["id"], "volumeId": snapshot["volume_id"],
            "status": snapshot["status"], "size": snapshot["size"],
            "createdAt": snapshot["created_at"], "displayName": snapshot.get("name"),
            "displayDescription": snapshot.get("description")}


def _not_found(snapshot_id: str) -> str:
    return f"Snapshot {snapshot_id} could not be found."


_SNAPSHOTS = volume_proxy.Collection("snapshots", "snapshots:", view)


def index(req: ApiRequest) -> ApiResponse:
    return _SNAPSHOTS.listed(req, "list")


def detail(req: ApiRequest) -> ApiResponse:
    return _SNAPSHOTS.listed(req, "detail")


def show(req: ApiRequest) -> ApiResponse:
    snapshot_id = req.params["id"]
    client = volume_proxy.client(req, "snapshots:show")
    with volume_proxy.answers(_not_found(snapshot_id)):
        return ApiResponse(200, {"snapshot": view(client.snapshot_get(snapshot_id))})


def create(req: ApiRequest) -> ApiResponse:
    """Nova's create_snapshot, or with `force` its create_snapshot_force (of a volume
    in use)."""
    check_proxy_version(req)
    validate(schema.create_snapshot, req.body)  # before the policy, as Nova's
    client = volume_proxy.client(req, "snapshots:create")
    asked = req.body["snapshot"]
    body = {"volume_id": asked["volume_id"], "name": asked.get("display_name"),
            "description": asked.get("display_description"),
            "force": str(asked.get("force", False)).lower() in _TRUE}
    with volume_proxy.answers(f"Volume {asked['volume_id']} could not be found."):
        made = client.request("POST", "/snapshots", {"snapshot": body})["snapshot"]
    return ApiResponse(200, {"snapshot": view(made)})


def delete(req: ApiRequest) -> ApiResponse:
    snapshot_id = req.params["id"]
    client = volume_proxy.client(req, "snapshots:delete")
    with volume_proxy.answers(_not_found(snapshot_id)):
        client.request("DELETE", f"/snapshots/{snapshot_id}")
    return ApiResponse(202)
