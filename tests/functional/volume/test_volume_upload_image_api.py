"""os-volume_upload_image over real HTTP: a volume written into a new image of the
caller's project, with the formats asked for and the properties of the image the volume
was made from, the volume `uploading` meanwhile and `available` again; Cinder's refusals
(an attached volume without force, a format the backend cannot write, a public image
from a member); a failed upload's message, no image left and the volume as it was."""

from __future__ import annotations

import subprocess

import httpx
import pytest

from novalite.clients import glance
from novalite.image import db as images
from novalite.image import store
from novalite.volume import backend

ALICE = {"X-Auth-Token": "alice:proj1"}


@pytest.fixture
def client(cloud):
    return httpx.Client(base_url=f"{cloud.base_url}/volume/v3", timeout=30,
                        headers={**ALICE, "OpenStack-API-Version": "volume 3.1"})


@pytest.fixture
def image_service(cloud):
    return httpx.Client(base_url=f"{cloud.base_url}/image/v2", timeout=30, headers=ALICE)


def _volume(cloud, client: httpx.Client, **fields) -> str:
    made = client.post("/volumes", json={"volume": {"size": 1, **fields}})
    assert made.status_code == 202, made.text
    cloud.settle()
    return str(made.json()["volume"]["id"])


def _upload(client: httpx.Client, volume_id: str, **fields) -> httpx.Response:
    return client.post(f"/volumes/{volume_id}/action", json={"os-volume_upload_image": {
        "image_name": "from-volume", **fields}})


def _fault(response: httpx.Response, code: int = 400) -> str:
    assert response.status_code == code, response.text
    (body,) = response.json().values()
    return str(body["message"])


def test_a_volume_uploaded_to_an_image_boots_a_server(cloud, client, image_service):
    volume_id = _volume(cloud, client, imageRef=images.DEFAULT_IMAGE_ID)
    uploaded = _upload(client, volume_id, disk_format="qcow2", visibility="shared")
    assert uploaded.status_code == 202, uploaded.text
    body = uploaded.json()["os-volume_upload_image"]
    assert (body["id"], body["status"], body["disk_format"], body["container_format"],
            body["image_name"], body["visibility"], body["protected"]) == (
        volume_id, "uploading", "qcow2", "bare", "from-volume", "shared", False)
    assert body["volume_type"]["name"] == "__DEFAULT__"
    cloud.settle()
    image = image_service.get(f"/images/{body['image_id']}").json()
    assert (image["status"], image["owner"], image["disk_format"], image["min_disk"]) == (
        "active", "proj1", "qcow2", 1)
    origin = image_service.get(f"/images/{images.DEFAULT_IMAGE_ID}").json()
    for inherited in ("kernel_id", "ramdisk_id", "os_command_line"):
        assert image.get(inherited) == origin.get(inherited)
    assert client.get(f"/volumes/{volume_id}").json()["volume"]["status"] == "available"
    compared = subprocess.run(  # the image holds the volume's data
        ["qemu-img", "compare", "-q", "-f", "qcow2", "-F", "qcow2",
         store.path(image["id"]), f"{backend.volumes_dir()}/{volume_id}"],
        capture_output=True, text=True)
    assert compared.returncode == 0, compared.stdout + compared.stderr

    server = cloud.api.post("/servers", headers=ALICE, json={"server": {
        "name": "from-uploaded", "flavorRef": "1", "imageRef": image["id"]}})
    assert server.status_code == 202, server.text
    cloud.wait_status(server.json()["server"]["id"], "ACTIVE")


def test_cinder_refusals(cloud, client, conf):
    volume_id = _volume(cloud, client)
    assert "Invalid disk-format 'vmdk'" in _fault(_upload(client, volume_id,
                                                          disk_format="vmdk"))
    assert _fault(_upload(client, volume_id, visibility="public"), 403)
    old = client.post(f"/volumes/{volume_id}/action",
                      headers={"OpenStack-API-Version": "volume 3.0"},
                      json={"os-volume_upload_image": {"image_name": "x",
                                                       "visibility": "shared"}})
    assert "visibility" in _fault(old)
    server = cloud.api.post("/servers", headers=ALICE, json={"server": {
        "name": "holder", "flavorRef": "1", "imageRef": images.DEFAULT_IMAGE_ID}}
    ).json()["server"]["id"]
    cloud.wait_status(server, "ACTIVE")
    attached = cloud.api.post(f"/servers/{server}/os-volume_attachments", headers=ALICE,
                              json={"volumeAttachment": {"volumeId": volume_id}})
    assert attached.status_code == 200, attached.text
    cloud.settle()
    assert _fault(_upload(client, volume_id)) == (
        "Invalid volume: Volume status must be available, but it is in-use.")
    assert "enable_force_upload" in _fault(_upload(client, volume_id, force=True))
    conf.set_override("enable_force_upload", True)
    forced = _upload(client, volume_id, force=True, disk_format="qcow2")
    assert forced.status_code == 202, forced.text
    cloud.settle()
    assert client.get(f"/volumes/{volume_id}").json()["volume"]["status"] == "in-use"


def test_a_failed_upload_leaves_a_message_and_no_image(cloud, client, image_service,
                                                       monkeypatch):
    volume_id = _volume(cloud, client)

    def refused(*args, **kwargs):
        raise glance.ImageServiceUnavailable(reason="the store is full")

    monkeypatch.setattr(glance, "upload", refused)
    uploaded = _upload(client, volume_id, disk_format="qcow2")
    assert uploaded.status_code == 202, uploaded.text
    cloud.settle()
    image_id = uploaded.json()["os-volume_upload_image"]["image_id"]
    assert image_service.get(f"/images/{image_id}").status_code == 404
    assert client.get(f"/volumes/{volume_id}").json()["volume"]["status"] == "available"
    listed = client.get("/messages", headers={"OpenStack-API-Version": "volume 3.3"})
    (message,) = [m for m in listed.json()["messages"]
                  if m["resource_uuid"] == volume_id]
    assert message["user_message"] == ("copy volume to image:Failed to upload volume to "
                                       "image at backend.")
