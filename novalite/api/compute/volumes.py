"""Nova's volume proxy, `/os-volumes` up to microversion 2.35: the caller's volumes in
the volume service, in Nova's old shape (camelCase, `attachments: [{}]` for none) for
the clients and Tempest tests of that age."""

from __future__ import annotations

from typing import Any

from novalite.api.compute import volume_proxy
from novalite.api.compute.networks import check_proxy_version
from novalite.api.compute.schemas import validate
from novalite.api.compute.schemas import volumes as schema
from novalite.api.request import ApiRequest, ApiResponse


def view(volume: dict[str, Any]) -> dict[str, Any]:
    """Nova's _translate_volume_summary_view (the detail view is the same): the first
    attachment, as Nova shows one."""
    attachments = volume.get("attachments") or []
    shown: dict[str, Any] = {}
    if attachments:
        first = attachments[0]
        shown = {"id": volume["id"], "volumeId": volume["id"],
                 "serverId": first["server_id"]}
        if first.get("device"):
            shown["device"] = first["device"]
    return {"id": volume["id"], "status": volume["status"], "size": volume["size"],
            "availabilityZone": volume["availability_zone"],
            "createdAt": volume["created_at"], "attachments": [shown],
            "displayName": volume.get("name"),
            "displayDescription": volume.get("description"),
            "volumeType": volume.get("volume_type"), "snapshotId": volume.get("snapshot_id"),
            "metadata": volume.get("metadata") or {}}


def _not_found(volume_id: str) -> str:
    return f"Volume {volume_id} could not be found."


_VOLUMES = volume_proxy.Collection("volumes", "", view)


def index(req: ApiRequest) -> ApiResponse:
    return _VOLUMES.listed(req, "list")


def detail(req: ApiRequest) -> ApiResponse:
    return _VOLUMES.listed(req, "detail")


def show(req: ApiRequest) -> ApiResponse:
    volume_id = req.params["id"]
    client = volume_proxy.client(req, "show")
    with volume_proxy.answers(_not_found(volume_id)):
        return ApiResponse(200, {"volume": view(client.get(volume_id))})


def create(req: ApiRequest) -> ApiResponse:
    check_proxy_version(req)
    validate(schema.create_volume, req.body)  # before the policy, as Nova's
    client = volume_proxy.client(req, "create")
    asked = req.body["volume"]
    body: dict[str, Any] = {"size": int(asked["size"])}
    for theirs, ours in (("display_name", "name"), ("display_description", "description"),
                         ("volume_type", "volume_type"), ("metadata", "metadata"),
                         ("availability_zone", "availability_zone")):
        if theirs in asked:
            body[ours] = asked[theirs]
    snapshot_id = asked.get("snapshot_id")
    if snapshot_id is not None:
        with volume_proxy.answers(f"Snapshot {snapshot_id} could not be found."):
            client.snapshot_get(snapshot_id)
        body["snapshot_id"] = snapshot_id
    with volume_proxy.answers():
        made = client.request("POST", "/volumes", {"volume": body})["volume"]
    return ApiResponse(200, {"volume": view(made)},
                       headers={"Location": f"{req.base_url}/v2.1/os-volumes/{made['id']}"})


def delete(req: ApiRequest) -> ApiResponse:
    volume_id = req.params["id"]
    client = volume_proxy.client(req, "delete")
    with volume_proxy.answers(_not_found(volume_id)):
        client.delete(volume_id)
    return ApiResponse(202)
