"""Volumes written from images over real HTTP: the image service's data converted into
the volume, which is bootable; an image whose disk is larger than the volume ends in
`error` with Cinder's message."""

from __future__ import annotations

import subprocess

import httpx
import pytest

from novalite.image import db as images
from novalite.image import store
from novalite.volume import backend


@pytest.fixture
def client(cloud):
    return httpx.Client(base_url=f"{cloud.base_url}/volume/v3", timeout=30,
                        headers={"OpenStack-API-Version": "volume 3.3"})


def _upload(cloud, data: bytes, disk_format: str) -> str:
    glance = httpx.Client(base_url=f"{cloud.base_url}/image/v2", timeout=30)
    image = glance.post("/images", json={"name": "img", "disk_format": disk_format,
                                          "container_format": "bare"}).json()
    stored = glance.put(f"/images/{image['id']}/file", content=data,
                        headers={"Content-Type": "application/octet-stream"})
    assert stored.status_code == 204, stored.text
    return str(image["id"])


def _created(cloud, client: httpx.Client, image_id: str, size: int) -> dict:
    response = client.post("/volumes", json={"volume": {"size": size, "imageRef": image_id}})
    assert response.status_code == 202, response.text
    cloud.settle()
    return client.get(f"/volumes/{response.json()['volume']['id']}").json()["volume"]


def test_the_default_image_written_into_a_bootable_volume(cloud, client):
    volume = _created(cloud, client, images.DEFAULT_IMAGE_ID, 1)
    assert (volume["status"], volume["bootable"]) == ("available", "true")
    assert volume["volume_image_metadata"] == {"image_id": images.DEFAULT_IMAGE_ID}
    compared = subprocess.run(  # the same data; what the volume has beyond it is zeros
        ["qemu-img", "compare", "-q", "-f", "raw", "-F", "qcow2",  # the fake cloud's: raw
         store.path(images.DEFAULT_IMAGE_ID), f"{backend.volumes_dir()}/{volume['id']}"],
        capture_output=True, text=True)
    assert compared.returncode == 0, compared.stdout + compared.stderr


def test_an_image_whose_disk_is_larger_than_the_volume(cloud, client, tmp_path):
    disk = tmp_path / "big.qcow2"
    subprocess.run(["qemu-img", "create", "-q", "-f", "qcow2", str(disk), "2G"], check=True)
    big = _upload(cloud, disk.read_bytes(), "qcow2")
    volume = _created(cloud, client, big, 1)
    assert volume["status"] == "error"
    (message,) = [m for m in client.get("/messages").json()["messages"]
                  if m["resource_uuid"] == volume["id"]]
    assert message["user_message"] == ("copy image to volume:Image used for creating volume "
                                       "exceeds available space.")
    missing = client.post("/volumes", json={"volume": {"size": 1, "imageRef": "nope"}})
    assert missing.json()["badRequest"]["message"] == (
        "Invalid input received: Invalid image identifier or unable to access requested "
        "image.")
