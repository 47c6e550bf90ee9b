"""The compute API boots only images the caller may see, and only active ones."""

from __future__ import annotations

import httpx
import pytest


def _compute(cloud, token: str) -> httpx.Client:
    return httpx.Client(base_url=f"{cloud.base_url}/compute/v2.1",
                        headers={"X-Auth-Token": token}, timeout=30)


def _boot(client: httpx.Client, image_id: str) -> httpx.Response:
    return client.post("/servers", json={"server": {"name": "vm", "flavorRef": "1",
                                                    "imageRef": image_id}})


def _not_found(response: httpx.Response, image_id: str) -> None:
    assert response.status_code == 400, response.text
    assert response.json()["badRequest"]["message"] == f"Image {image_id} could not be found."


def test_boot_from_an_uploaded_image(cloud, glance):
    image_id = glance["alice"].create(name="mine", disk_format="raw",
                                      container_format="bare", hw_vm_mode="hvm")["id"]
    glance["alice"].upload(image_id, b"\0" * 4096)
    response = _boot(_compute(cloud, "alice:p1"), image_id)
    assert response.status_code == 202, response.text
    server_id = response.json()["server"]["id"]
    server = cloud.wait_status(server_id, "ACTIVE", "ERROR")
    assert server["status"] == "ACTIVE" and server["image"]["id"] == image_id


def test_another_projects_private_image_is_not_found(cloud, glance):
    image_id = glance["alice"].create(name="private", visibility="private")["id"]
    glance["alice"].upload(image_id, b"data")
    _not_found(_boot(_compute(cloud, "bob:p2"), image_id), image_id)


def test_a_shared_image_boots_once_accepted(cloud, glance):
    alice, bob = glance["alice"], glance["bob"]
    image_id = alice.create(name="shared")["id"]
    alice.upload(image_id, b"data")
    alice.http.post(f"/v2/images/{image_id}/members", json={"member": "p2"})
    _not_found(_boot(_compute(cloud, "bob:p2"), image_id), image_id)
    bob.http.put(f"/v2/images/{image_id}/members/p2", json={"status": "accepted"})
    assert _boot(_compute(cloud, "bob:p2"), image_id).status_code == 202


@pytest.mark.parametrize("visibility", ["community", "private"])
def test_admins_and_everyone_for_community(cloud, glance, visibility):
    image_id = glance["alice"].create(name="c", visibility=visibility)["id"]
    glance["alice"].upload(image_id, b"data")
    assert _boot(cloud.api, image_id).status_code == 202
    expected = 202 if visibility == "community" else 400
    assert _boot(_compute(cloud, "bob:p2"), image_id).status_code == expected


def test_inactive_images_do_not_boot(cloud, glance):
    queued = glance["alice"].create(name="queued")["id"]
    response = _boot(_compute(cloud, "alice:p1"), queued)
    assert response.status_code == 400
    assert response.json()["badRequest"]["message"] == f"Image {queued} is not active."
