"""Nova's image proxy (/images up to 2.35, /images/{id}/metadata up to 2.38) through
real HTTP, checked against tempest's schemas, with its 400/403/404 answers."""

import pytest

from novalite.image import db as images
from novalite.image.record import ImageRecord
from tests.functional.tempest_schemas import check

MV = "X-OpenStack-Nova-API-Version"
ALICE = {"X-Auth-Token": "alice:proj1"}
BOB = {"X-Auth-Token": "bob:proj2"}


def _h(version="2.1", who=None):
    return {MV: version, **(who or {})}


def _fault(response, status, name):
    assert response.status_code == status, response.text
    return response.json()[name]["message"]


@pytest.fixture
def private(cloud):
    """An image of alice's project, as if snapshotted from a server."""
    return images.image_create(ImageRecord(
        id="5d6ac1f2-8c52-4b5c-9f1e-2e0a4c7b9d11", name="snap", status="active",
        visibility="private", owner="proj1", disk_format="qcow2", container_format="bare",
        size=1024, min_ram=64, properties={"instance_uuid": "inst-1",
                                           "image_type": "snapshot"})).id


def test_list_detail_and_show_match_tempest(cloud, private):
    listed = check(cloud.api.get("/images", headers=_h(who=ALICE)), "v2_1", "images",
                   "list_images")["images"]
    assert {i["id"] for i in listed} >= {images.DEFAULT_IMAGE_ID, private}
    detailed = check(cloud.api.get("/images/detail", headers=_h(who=ALICE)), "v2_1",
                     "images", "list_images_details")["images"]
    snap = next(i for i in detailed if i["id"] == private)
    assert (snap["status"], snap["progress"], snap["minRam"], snap["server"]["id"]) == (
        "ACTIVE", 100, 64, "inst-1")
    assert snap["links"][2]["href"].endswith(f"/image/images/{private}")
    shown = check(cloud.api.get(f"/images/{private}", headers=_h(who=ALICE)), "v2_1",
                  "images", "get_image")["image"]
    assert shown == snap


def test_filters_and_paging(cloud, private):
    def names(**params):
        response = cloud.api.get("/images/detail", params=params, headers=_h(who=ALICE))
        assert response.status_code == 200, response.text
        return [i["name"] for i in response.json()["images"]]

    assert names(name="snap") == ["snap"]
    assert names(type="snapshot", server="http://x/servers/inst-1") == ["snap"]
    assert names(minRam="65") == []
    assert names(**{"property-image_type": "snapshot"}) == ["snap"]
    assert "snap" not in names(status="SAVING")
    first = cloud.api.get("/images?limit=1", headers=_h(who=ALICE)).json()
    assert len(first["images"]) == 1 and first["images_links"][0]["rel"] == "next"
    assert _fault(cloud.api.get("/images?marker=nope", headers=_h(who=ALICE)), 400,
                  "badRequest") == "Invalid marker. Image nope could not be found."
    assert _fault(cloud.api.get("/images?minRam=x", headers=_h(who=ALICE)), 400,
                  "badRequest") == "Invalid minRam filter [x]"


def test_metadata_changes_with_the_owners_rights(cloud, private):
    base = f"/images/{private}/metadata"
    merged = check(cloud.api.post(base, json={"metadata": {"a": "1"}}, headers=_h(who=ALICE)),
                   "v2_1", "images", "image_metadata")["metadata"]
    assert merged["a"] == "1" and merged["image_type"] == "snapshot"
    item = check(cloud.api.put(f"{base}/b", json={"meta": {"b": "2"}}, headers=_h(who=ALICE)),
                 "v2_1", "images", "image_meta_item")
    assert item == {"meta": {"b": "2"}}
    assert cloud.api.get(f"{base}/b", headers=_h(who=ALICE)).json() == {"meta": {"b": "2"}}
    assert cloud.api.delete(f"{base}/b", headers=_h(who=ALICE)).status_code == 204
    assert _fault(cloud.api.delete(f"{base}/b", headers=_h(who=ALICE)), 404,
                  "itemNotFound") == "Invalid metadata key"
    replaced = cloud.api.put(base, json={"metadata": {"only": "x"}}, headers=_h(who=ALICE))
    assert replaced.json() == {"metadata": {"only": "x"}}
    assert _fault(cloud.api.put(f"{base}/c", json={"meta": {"d": "1"}},
                                headers=_h(who=ALICE)), 400, "badRequest") == (
        "Request body and URI mismatch")
    assert _fault(cloud.api.get(base, headers=_h(who=BOB)), 404, "itemNotFound") == (
        "Image not found.")
    public = f"/images/{images.DEFAULT_IMAGE_ID}/metadata"
    assert cloud.api.post(public, json={"metadata": {"a": "1"}}, headers=_h(who=ALICE)
                          ).status_code == 403


def test_metadata_beyond_the_quota_is_a_403(cloud, private):
    cloud.api.put("/os-quota-sets/proj1", json={"quota_set": {"metadata_items": 2}})
    refused = cloud.api.put(f"/images/{private}/metadata",
                            json={"metadata": {"a": "1", "b": "2", "c": "3"}},
                            headers=_h(who=ALICE))
    assert _fault(refused, 403, "forbidden") == "Image metadata limit exceeded"


def test_delete_by_its_owner_only(cloud, private):
    assert _fault(cloud.api.delete(f"/images/{images.DEFAULT_IMAGE_ID}",
                                   headers=_h(who=ALICE)), 403, "forbidden") == (
        "You are not allowed to delete the image.")
    assert cloud.api.delete(f"/images/{private}", headers=_h(who=ALICE)).status_code == 204
    assert _fault(cloud.api.get(f"/images/{private}", headers=_h(who=ALICE)), 404,
                  "itemNotFound") == "Image not found."


def test_gone_after_the_proxy_versions(cloud, private):
    assert cloud.api.get("/images", headers=_h("2.36", ALICE)).status_code == 404
    assert cloud.api.get(f"/images/{private}", headers=_h("2.36", ALICE)).status_code == 404
    metadata = f"/images/{private}/metadata"
    assert cloud.api.get(metadata, headers=_h("2.38", ALICE)).status_code == 200
    assert cloud.api.get(metadata, headers=_h("2.39", ALICE)).status_code == 404
