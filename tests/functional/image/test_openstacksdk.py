"""The unmodified openstacksdk drives the image API: discovery, create, upload, list by
name and `id=in:`, download with its checksum check, delete."""

from __future__ import annotations

import hashlib
import os

import openstack
import pytest

from novalite.image import db as images


def _connect(cloud, token: str) -> openstack.connection.Connection:
    endpoint = f"{cloud.base_url}/image"
    return openstack.connection.Connection(
        auth_type="admin_token", auth={"token": token, "endpoint": endpoint},
        image_endpoint_override=endpoint, image_api_version="2")


@pytest.fixture
def sdk(cloud):
    connection = _connect(cloud, "alice:p1")
    yield connection
    connection.close()


def test_create_upload_list_download_delete(sdk):
    data = os.urandom(3 * 1024 * 1024)
    image = sdk.image.create_image("sdk-image", data=data, disk_format="raw",
                                   container_format="bare", hw_architecture="x86_64",
                                   wait=True, validate_checksum=True)
    assert image.status == "active" and image.size == len(data)
    assert image.checksum == hashlib.md5(data).hexdigest()
    assert image.properties["hw_architecture"] == "x86_64"
    assert sdk.image.find_image("sdk-image").id == image.id
    listed = {i.id for i in sdk.image.images(id=f"in:{image.id},{images.DEFAULT_IMAGE_ID}")}
    assert listed == {image.id, images.DEFAULT_IMAGE_ID}
    downloaded = sdk.image.download_image(image)
    assert downloaded.content == data
    sdk.image.update_image(image, name="renamed")
    assert sdk.image.get_image(image.id).name == "renamed"
    sdk.image.delete_image(image)
    assert sdk.image.find_image(image.id) is None


def test_paging_through_many_images(sdk):
    made = {sdk.image.create_image(f"page-{i}", allow_duplicates=True).id for i in range(7)}
    seen = [i.id for i in sdk.image.images(owner="p1", limit=3)]
    assert len(seen) == len(set(seen)) and set(seen) == made
