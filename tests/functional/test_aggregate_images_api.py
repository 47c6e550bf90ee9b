"""Image pre-caching on a host aggregate (POST /os-aggregates/{id}/images, 2.81) through
real HTTP on the all-in-one (fake driver, three hosts): the aggregate's hosts that are up
download the images, the others are not asked; Nova's notifications say how each host
did; Nova's 400/403/404 answers."""

from __future__ import annotations

import uuid

from sqlalchemy import update

from novalite.db import models, session
from novalite.image import db as images

V281 = {"X-OpenStack-Nova-API-Version": "2.81"}
IMAGE = images.DEFAULT_IMAGE_ID


def _aggregate(cloud, *hosts: str) -> int:
    made = cloud.api.post("/os-aggregates", json={"aggregate": {"name": "cached"}})
    assert made.status_code == 200, made.text
    agg_id = made.json()["aggregate"]["id"]
    for host in hosts:
        added = cloud.api.post(f"/os-aggregates/{agg_id}/action",
                               json={"add_host": {"host": host}})
        assert added.status_code == 200, added.text
    return agg_id


def _cache(cloud, agg_id, *image_ids, headers=V281):
    return cloud.api.post(f"/os-aggregates/{agg_id}/images", headers=headers,
                          json={"cache": [{"id": i} for i in image_ids]})


def _fault(response, status, name="badRequest"):
    assert response.status_code == status, response.text
    return response.json()[name]["message"]


def test_the_hosts_of_the_aggregate_that_are_up_cache_the_image(cloud_factory, sink):
    cloud = cloud_factory(hosts=3)
    agg_id = _aggregate(cloud, "compute1", "compute2")
    with session.writer() as s:
        s.execute(update(models.Service).where(models.Service.host == "compute2")
                  .values(forced_down=True))
    answered = _cache(cloud, agg_id, IMAGE)
    assert (answered.status_code, answered.content) == (202, b"")
    cloud.settle()
    assert IMAGE in cloud.compute("compute1").driver.cached_images
    assert not cloud.compute("compute2").driver.cached_images  # down: skipped
    assert not cloud.compute("compute3").driver.cached_images  # not in the aggregate
    assert sink.events("aggregate.cache_images") == [
        "aggregate.cache_images.start", "aggregate.cache_images.progress",
        "aggregate.cache_images.progress", "aggregate.cache_images.end"]
    progress = [m["payload"] for m in sink.received
                if m["event_type"] == "aggregate.cache_images.progress"]
    assert progress[0]["nova_object.name"] == "AggregateCachePayload"
    assert [(p["nova_object.data"]["host"], p["nova_object.data"]["index"],
             p["nova_object.data"]["total"], p["nova_object.data"]["images_cached"],
             p["nova_object.data"]["images_failed"]) for p in progress] == [
        ("compute1", 1, 2, [IMAGE], []), ("compute2", 2, 2, [], [IMAGE])]
    assert sink.received[-1]["publisher_id"].startswith("nova-conductor:")

    assert _cache(cloud, agg_id, IMAGE).status_code == 202  # again: it exists there
    cloud.settle()
    assert cloud.compute("compute1").driver.cached_images == {IMAGE}


def test_refusals_as_nova_answers_them(cloud):
    agg_id = _aggregate(cloud, "compute1")
    assert _cache(cloud, agg_id, IMAGE, headers={
        "X-OpenStack-Nova-API-Version": "2.80"}).status_code == 404
    assert _fault(_cache(cloud, agg_id, IMAGE, IMAGE), 400) == "Duplicate images in request"
    missing = str(uuid.uuid4())
    assert _fault(_cache(cloud, agg_id, missing), 400) == (
        f"Image {missing} could not be found.")
    assert _fault(_cache(cloud, 999, IMAGE), 404, "itemNotFound")
    assert _fault(_cache(cloud, "abc", IMAGE), 400).endswith("id must be an integer")
    assert "not a 'uuid'" in _fault(_cache(cloud, agg_id, "not-a-uuid"), 400)
    assert _fault(cloud.api.post(f"/os-aggregates/{agg_id}/images", headers=V281,
                                 json={"cache": []}), 400)
    assert cloud.api.post(f"/os-aggregates/{agg_id}/images", json={"cache": [{"id": IMAGE}]},
                          headers={**V281, "X-Auth-Token": "alice:proj1"}
                          ).status_code == 403
    assert not cloud.compute("compute1").driver.cached_images
