"""/snapshots, volumes copied from a snapshot or another volume, and os-extend over real
HTTP on the all-in-one's file backend: the data really is copied and grown."""

from __future__ import annotations

import json
import subprocess

import httpx

from novalite.volume import backend


def _made(cloud, client: httpx.Client, collection: str, body: dict) -> dict:
    key = collection.rstrip("s")
    response = client.post(f"/{collection}", json={key: body})
    assert response.status_code == 202, response.text
    cloud.settle()
    return client.get(f"/{collection}/{response.json()[key]['id']}").json()[key]


def _virtual_size(path: str) -> int:
    return json.loads(subprocess.run(["qemu-img", "info", "--output=json", path], check=True,
                                     capture_output=True, text=True).stdout)["virtual-size"]


def _write_marker(path: str) -> None:
    subprocess.run(["qemu-io", "-f", "qcow2", "-c", "write -P 0x5a 0 64k", path], check=True,
                   capture_output=True)


def _has_marker(path: str) -> bool:
    return subprocess.run(["qemu-io", "-f", "qcow2", "-c", "read -P 0x5a 0 64k", path],
                          capture_output=True, text=True).stdout.count("Pattern verification "
                                                                      "failed") == 0


def test_snapshot_then_volumes_copied_from_it_and_from_a_volume(cloud, client):
    volume = _made(cloud, client, "volumes", {"size": 1, "name": "origin"})
    _write_marker(f"{backend.volumes_dir()}/{volume['id']}")
    snapshot = _made(cloud, client, "snapshots", {"volume_id": volume["id"], "name": "s1"})
    assert (snapshot["status"], snapshot["size"], snapshot["name"]) == ("available", 1, "s1")
    assert snapshot["user_id"] == "demo"
    assert _has_marker(f"{backend.volumes_dir()}/snapshot-{snapshot['id']}")
    assert [s["id"] for s in client.get("/snapshots").json()["snapshots"]] == [snapshot["id"]]
    detail = client.get("/snapshots/detail").json()["snapshots"][0]
    assert detail["os-extended-snapshot-attributes:progress"] == "100%"
    renamed = client.put(f"/snapshots/{snapshot['id']}", json={"snapshot": {"name": "s2"}})
    assert renamed.json()["snapshot"]["name"] == "s2"

    refused = client.delete(f"/volumes/{volume['id']}")
    assert refused.status_code == 400 and "have snapshots" in refused.text

    from_snapshot = _made(cloud, client, "volumes", {"snapshot_id": snapshot["id"], "size": 2})
    assert (from_snapshot["status"], from_snapshot["snapshot_id"], from_snapshot["size"]) == (
        "available", snapshot["id"], 2)
    path = f"{backend.volumes_dir()}/{from_snapshot['id']}"
    assert _has_marker(path) and _virtual_size(path) == 2 * 1024**3
    clone = _made(cloud, client, "volumes", {"source_volid": volume["id"]})
    assert (clone["status"], clone["source_volid"], clone["size"]) == ("available",
                                                                       volume["id"], 1)
    assert _has_marker(f"{backend.volumes_dir()}/{clone['id']}")
    smaller = client.post("/volumes", json={"volume": {"snapshot_id": snapshot["id"],
                                                       "size": 1}})
    assert smaller.status_code == 202  # equal is fine
    cloud.settle()

    assert client.delete(f"/snapshots/{snapshot['id']}").status_code == 202
    cloud.settle()
    assert client.get(f"/snapshots/{snapshot['id']}").json()["itemNotFound"]["message"] == (
        f"Snapshot {snapshot['id']} could not be found.")


def test_extend_and_set_bootable_actions(cloud, client):
    volume = _made(cloud, client, "volumes", {"size": 1})
    action = f"/volumes/{volume['id']}/action"
    smaller = client.post(action, json={"os-extend": {"new_size": 1}})
    assert smaller.status_code == 400
    assert smaller.json()["badRequest"]["message"] == (
        "Invalid input received: New size for extend must be greater than current size. "
        "(current: 1, extended: 1).")
    assert client.post(action, json={"os-extend": {"new_size": 2}}).status_code == 202
    cloud.settle()
    assert client.get(f"/volumes/{volume['id']}").json()["volume"]["size"] == 2
    assert _virtual_size(f"{backend.volumes_dir()}/{volume['id']}") == 2 * 1024**3
    bootable = client.post(action, json={"os-set_bootable": {"bootable": "true"}})
    assert bootable.status_code == 200, bootable.text
    assert client.get(f"/volumes/{volume['id']}").json()["volume"]["bootable"] == "true"
    assert client.post(action, json={"os-set_bootable": {"bootable": "maybe"}}
                       ).status_code == 400
    assert client.post(action, json={"os-attach": {}}).status_code == 501
    assert client.post(action, json={"os-nonsense": {}}).json()["badRequest"][
        "message"] == "There is no such action: os-nonsense"


def test_bad_sources(cloud, client):
    missing = client.post("/volumes", json={"volume": {"snapshot_id": "nope", "size": 1}})
    assert missing.status_code == 404
    volume = _made(cloud, client, "volumes", {"size": 2})
    snapshot = _made(cloud, client, "snapshots", {"volume_id": volume["id"]})
    too_small = client.post("/volumes", json={"volume": {"snapshot_id": snapshot["id"],
                                                         "size": 1}})
    assert too_small.json()["badRequest"]["message"] == (
        "Invalid input received: Volume size '1'GB cannot be smaller than the snapshot size "
        "2GB. They must be >= original snapshot size.")
    no_size = client.post("/volumes", json={"volume": {"name": "x"}})
    assert no_size.status_code == 400
