"""Image pre-caching with the QEMU driver: an aggregate's host downloads the image from
the image service into its base image cache before any guest needs it."""

from __future__ import annotations

import os

from novalite.conf import CONF
from novalite.image import db as images
from novalite.virt.qemu import images as qemu_images


def test_a_host_of_the_aggregate_downloads_the_image_into_its_cache(two_qemu_hosts):
    cloud = two_qemu_hosts
    cached = os.path.join(qemu_images.base_dir(), images.DEFAULT_IMAGE_ID)
    assert not os.path.exists(cached)
    made = cloud.api.post("/os-aggregates", json={"aggregate": {"name": "precached"}})
    agg_id = made.json()["aggregate"]["id"]
    added = cloud.api.post(f"/os-aggregates/{agg_id}/action",
                           json={"add_host": {"host": f"{CONF.host}-1"}})
    assert added.status_code == 200, added.text
    answered = cloud.api.post(f"/os-aggregates/{agg_id}/images",
                              headers={"X-OpenStack-Nova-API-Version": "2.81"},
                              json={"cache": [{"id": images.DEFAULT_IMAGE_ID}]})
    assert answered.status_code == 202, answered.text
    cloud.settle()
    cloud.wait(lambda: os.path.exists(cached))
    assert os.path.getsize(cached) == images.image_get(images.DEFAULT_IMAGE_ID).size
