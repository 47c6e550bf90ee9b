"""The createImage server action through real HTTP: a private snapshot image with the
server's image properties and the fake driver's data, named in the body from 2.45 and
in Location before (tempest's schemas); Nova's 403/409; a failed snapshot's image gone."""

import pytest

from novalite.db import models
from novalite.image import db as images
from novalite.image import store
from tests.functional.tempest_schemas import check

MV = "X-OpenStack-Nova-API-Version"
ALICE = {"X-Auth-Token": "alice:proj1"}


@pytest.fixture
def server(cloud):
    created = cloud.api.post("/servers", headers=ALICE, json={"server": {
        "name": "snap-me", "flavorRef": "1", "imageRef": images.DEFAULT_IMAGE_ID}})
    server_id = created.json()["server"]["id"]
    cloud.wait_status(server_id, "ACTIVE")
    return server_id


def _snapshot(cloud, server_id, version="2.45", **body):
    return cloud.api.post(f"/servers/{server_id}/action", headers={MV: version, **ALICE},
                          json={"createImage": {"name": "snap", **body}})


def _image(cloud, image_id):
    return cloud.wait(lambda: (i := images.image_get(image_id)).status == "active" and i)


def test_a_snapshot_is_a_private_image_of_the_servers_disk(cloud, server):
    image_id = check(_snapshot(cloud, server, metadata={"purpose": "backup"}), "v2_45",
                     "images", "create_image")["image_id"]
    image = _image(cloud, image_id)
    assert (image.name, image.visibility, image.owner, image.disk_format) == (
        "snap", "private", "proj1", "raw")
    assert {k: image.properties[k] for k in ("instance_uuid", "image_type", "purpose",
                                              "base_image_ref")} == {
        "instance_uuid": server, "image_type": "snapshot", "purpose": "backup",
        "base_image_ref": images.DEFAULT_IMAGE_ID}
    assert b"".join(store.read(image_id)) == f"novalite fake disk of {server}\n".encode()
    shown = cloud.wait_status(server, "ACTIVE")
    assert shown["OS-EXT-STS:task_state"] is None
    actions = cloud.api.get(f"/servers/{server}/os-instance-actions",
                            headers=ALICE).json()["instanceActions"]
    assert actions[0]["action"] == "createImage"
    booted = cloud.api.post("/servers", headers=ALICE, json={"server": {
        "name": "from-snap", "flavorRef": "1", "imageRef": image_id}})
    assert booted.status_code == 202, booted.text
    cloud.wait_status(booted.json()["server"]["id"], "ACTIVE")


def test_before_2_45_the_location_names_the_image(cloud, server):
    response = _snapshot(cloud, server, "2.44")
    assert check(response, "v2_1", "images", "create_image") is None
    image_id = response.headers["location"].rsplit("/", 1)[-1]
    assert response.headers["location"] == f"{cloud.base_url}/image/images/{image_id}"
    assert _image(cloud, image_id).properties["instance_uuid"] == server


def test_refusals(cloud, server):
    cloud.api.put("/os-quota-sets/proj1", json={"quota_set": {"metadata_items": 1}})
    over = _snapshot(cloud, server, metadata={"a": "1", "b": "2"})
    assert (over.status_code, over.json()["forbidden"]["message"]) == (
        403, "Image metadata limit exceeded")
    assert _snapshot(cloud, server, name="").status_code == 400
    assert _snapshot(cloud, server, extra="x").status_code == 400
    before = len(images.image_get_all(models.Image.owner == "proj1"))
    cloud.api.post(f"/servers/{server}/action", json={"lock": None})  # locks don't stop it
    host = cloud.server(server)["OS-EXT-SRV-ATTR:host"]

    def broken(*args, **kwargs):
        raise RuntimeError("disk unreadable")

    cloud.compute(host).driver.snapshot = broken
    image_id = _snapshot(cloud, server).json()["image_id"]
    cloud.settle()
    assert cloud.wait(lambda: cloud.server(server)["OS-EXT-STS:task_state"] is None)
    assert cloud.api.get(f"{cloud.base_url}/image/v2/images/{image_id}").status_code == 404
    assert len(images.image_get_all(models.Image.owner == "proj1")) == before
