"""Uploading and downloading image data, its checksums, statuses and deactivation."""

from __future__ import annotations

import hashlib
import os

import pytest

from novalite.image import db as images
from novalite.image import seed, store

MIB = 1024 * 1024


def _chunks(data: bytes, size: int = 256 * 1024):
    for start in range(0, len(data), size):
        yield data[start:start + size]


def test_multi_mib_round_trip_with_checksums(glance):
    data = os.urandom(5 * MIB + 123)
    alice = glance["alice"]
    image_id = alice.create(name="big", disk_format="raw", container_format="bare")["id"]
    alice.upload(image_id, _chunks(data))  # chunked transfer encoding: streamed
    image = alice.show(image_id)
    assert image["status"] == "active" and image["size"] == len(data)
    assert image["checksum"] == hashlib.md5(data).hexdigest()
    assert image["os_hash_algo"] == "sha512"
    assert image["os_hash_value"] == hashlib.sha512(data).hexdigest()
    with alice.http.stream("GET", f"/v2/images/{image_id}/file") as response:
        assert response.status_code == 200
        assert response.headers["content-type"] == "application/octet-stream"
        assert response.headers["content-md5"] == image["checksum"]
        assert int(response.headers["content-length"]) == len(data)
        received = b"".join(response.iter_bytes())
    assert received == data
    assert os.path.getsize(store.path(image_id)) == len(data)


def test_upload_to_an_active_image_is_409(glance):
    alice = glance["alice"]
    image_id = alice.create(name="once")["id"]
    alice.upload(image_id, b"first")
    conflict = alice.upload(image_id, b"second", expected=409).json()
    assert conflict["message"].startswith(
        "Image status transition from active to saving is not allowed")
    assert alice.http.get(f"/v2/images/{image_id}/file").content == b"first"


def test_upload_needs_octet_stream_and_ownership(glance):
    image_id = glance["alice"].create(name="u", visibility="community")["id"]
    response = glance["alice"].http.put(f"/v2/images/{image_id}/file", content=b"x",
                                        headers={"Content-Type": "application/json"})
    assert response.status_code == 415
    glance["bob"].upload(image_id, b"x", expected=403)
    glance["bob"].upload("00000000-0000-0000-0000-000000000000", b"x", expected=404)


def test_download_of_an_image_without_data_is_204(glance):
    image_id = glance["alice"].create(name="empty")["id"]
    response = glance["alice"].http.get(f"/v2/images/{image_id}/file")
    assert response.status_code == 204 and response.content == b""


def test_too_large_is_413_and_the_image_stays_queued(glance, conf):
    conf.set_override("image_size_cap", 1000)
    alice = glance["alice"]
    image_id = alice.create(name="big")["id"]
    alice.upload(image_id, _chunks(b"x" * 5000, 100), expected=413)
    alice.upload(image_id, b"y" * 2000, expected=413)  # refused by its Content-Length
    assert alice.show(image_id)["status"] == "queued"
    alice.upload(image_id, b"z" * 1000)
    assert alice.show(image_id)["size"] == 1000


def test_deactivate_and_reactivate(glance):
    alice, admin = glance["alice"], glance["admin"]
    image_id = alice.create(name="d")["id"]
    assert admin.http.post(f"/v2/images/{image_id}/actions/deactivate").status_code == 403
    alice.upload(image_id, b"data")
    assert alice.http.post(f"/v2/images/{image_id}/actions/deactivate").status_code == 403
    assert admin.http.post(f"/v2/images/{image_id}/actions/deactivate").status_code == 204
    assert alice.show(image_id)["status"] == "deactivated"
    response = alice.http.get(f"/v2/images/{image_id}/file")
    assert response.status_code == 403 and "deactivated" in response.json()["message"]
    assert admin.http.get(f"/v2/images/{image_id}/file").content == b"data"
    assert admin.http.post(f"/v2/images/{image_id}/actions/reactivate").status_code == 204
    assert alice.http.get(f"/v2/images/{image_id}/file").content == b"data"


def test_delete_removes_the_data(glance):
    alice = glance["alice"]
    image_id = alice.create(name="gone")["id"]
    alice.upload(image_id, b"bytes")
    assert os.path.exists(store.path(image_id))
    assert alice.http.delete(f"/v2/images/{image_id}").status_code == 204
    assert not os.path.exists(store.path(image_id))


@pytest.mark.parametrize("who", ["admin", "alice"])
def test_the_seeded_image_has_real_bytes(glance, who):
    image = glance[who].show(images.DEFAULT_IMAGE_ID)
    data = seed.tiny_image_bytes()
    assert image["name"] == "novalite-tiny" and image["visibility"] == "public"
    assert image["status"] == "active" and image["size"] == len(data)
    assert image["checksum"] == hashlib.md5(data).hexdigest()
    assert image["os_hash_value"] == hashlib.sha512(data).hexdigest()
    assert glance[who].http.get(f"/v2/images/{images.DEFAULT_IMAGE_ID}/file").content == data
