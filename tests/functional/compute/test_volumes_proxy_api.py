"""Nova's volume and snapshot proxies (/os-volumes, /os-snapshots up to 2.35) and the
/os-volumes_boot alias of the servers API (up to 2.102) through real HTTP, against the
all-in-one's volume service: each answer checked against tempest's schema, with Nova's
400/403/404 answers."""

from __future__ import annotations

import pytest

from novalite.image import db as images
from tests.functional.tempest_schemas import check

MV = "X-OpenStack-Nova-API-Version"
ALICE = {"X-Auth-Token": "alice:proj1"}
BOB = {"X-Auth-Token": "bob:proj2"}
READER = {"X-Auth-Token": "carol:proj1", "X-Roles": "reader"}


def _h(version="2.1", who=None):
    return {MV: version, **(who or ALICE)}


def _fault(response, status, name):
    assert response.status_code == status, response.text
    return response.json()[name]["message"]


def _created(cloud, **volume):
    made = check(cloud.api.post("/os-volumes", headers=_h(), json={"volume": {
        "size": 1, **volume}}), "v2_1", "volumes", "create_get_volume")["volume"]
    cloud.settle()
    return made


def test_volumes_created_listed_shown_and_deleted_as_nova_shows_them(cloud):
    made = _created(cloud, display_name="data", display_description="mine",
                    metadata={"role": "db"})
    assert (made["displayName"], made["displayDescription"], made["size"],
            made["metadata"], made["attachments"]) == ("data", "mine", 1, {"role": "db"},
                                                       [{}])
    shown = check(cloud.api.get(f"/os-volumes/{made['id']}", headers=_h()), "v2_1",
                  "volumes", "create_get_volume")["volume"]
    assert (shown["status"], shown["volumeType"]) == ("available", "__DEFAULT__")
    for path in ("/os-volumes", "/os-volumes/detail"):
        listed = check(cloud.api.get(path, headers=_h()), "v2_1", "volumes",
                       "list_volumes")["volumes"]
        assert [v["id"] for v in listed] == [made["id"]]
    assert cloud.api.get("/os-volumes", headers=_h(who=BOB)).json()["volumes"] == []

    assert cloud.api.delete(f"/os-volumes/{made['id']}", headers=_h()).status_code == 202
    cloud.settle()
    assert _fault(cloud.api.get(f"/os-volumes/{made['id']}", headers=_h()), 404,
                  "itemNotFound") == f"Volume {made['id']} could not be found."


def test_a_volume_attached_shows_its_server_and_cannot_be_deleted(cloud):
    server_id = cloud.api.post("/servers", headers=ALICE, json={"server": {
        "name": "vm", "flavorRef": "1", "imageRef": images.DEFAULT_IMAGE_ID}}).json()[
        "server"]["id"]
    cloud.wait_status(server_id, "ACTIVE")
    volume_id = _created(cloud)["id"]
    attached = cloud.api.post(f"/servers/{server_id}/os-volume_attachments", headers=_h(),
                              json={"volumeAttachment": {"volumeId": volume_id}})
    assert attached.status_code == 200, attached.text
    cloud.settle()
    cloud.wait(lambda: cloud.api.get(f"/os-volumes/{volume_id}", headers=_h()).json()[
        "volume"]["status"] == "in-use")
    shown = check(cloud.api.get(f"/os-volumes/{volume_id}", headers=_h()), "v2_1",
                  "volumes", "create_get_volume")["volume"]
    assert shown["attachments"] == [{"id": volume_id, "volumeId": volume_id,
                                     "serverId": server_id,
                                     "device": attached.json()["volumeAttachment"][
                                         "device"]}]
    assert _fault(cloud.api.delete(f"/os-volumes/{volume_id}", headers=_h()), 400,
                  "badRequest")


def test_snapshots_of_a_volume_and_a_volume_from_one(cloud):
    volume_id = _created(cloud)["id"]
    snap = check(cloud.api.post("/os-snapshots", headers=_h(), json={"snapshot": {
        "volume_id": volume_id, "display_name": "s1", "force": "false"}}), "v2_1",
        "snapshots", "create_get_snapshot")["snapshot"]
    cloud.settle()
    assert (snap["volumeId"], snap["displayName"], snap["size"]) == (volume_id, "s1", 1)
    shown = check(cloud.api.get(f"/os-snapshots/{snap['id']}", headers=_h()), "v2_1",
                  "snapshots", "create_get_snapshot")["snapshot"]
    assert shown["status"] == "available"
    for path in ("/os-snapshots", "/os-snapshots/detail"):
        listed = check(cloud.api.get(path, headers=_h()), "v2_1", "snapshots",
                       "list_snapshots")["snapshots"]
        assert [s["id"] for s in listed] == [snap["id"]]

    copy = _created(cloud, snapshot_id=snap["id"])
    assert copy["snapshotId"] == snap["id"]
    assert _fault(cloud.api.delete(f"/os-snapshots/{snap['id']}", headers=_h(who=BOB)),
                  404, "itemNotFound") == f"Snapshot {snap['id']} could not be found."
    assert cloud.api.delete(f"/os-snapshots/{snap['id']}", headers=_h()).status_code == 202
    cloud.settle()
    assert cloud.api.get("/os-snapshots", headers=_h()).json()["snapshots"] == []


def test_lists_take_limit_and_offset(cloud):
    made = [_created(cloud, display_name=f"v{i}")["id"] for i in range(3)]
    listed = [v["id"] for v in cloud.api.get("/os-volumes", headers=_h()).json()["volumes"]]
    assert sorted(listed) == sorted(made)
    page = cloud.api.get("/os-volumes", headers=_h(), params={"limit": 1, "offset": 1})
    assert [v["id"] for v in page.json()["volumes"]] == listed[1:2]
    assert _fault(cloud.api.get("/os-volumes", headers=_h(), params={"limit": "-1"}), 400,
                  "badRequest").startswith("Invalid input for query parameters limit")


@pytest.mark.parametrize(("body", "wanted"), [
    ({"volume": {}}, "'size' is a required property"),
    ({"volume": {"size": 0}}, "size"),
    ({"volume": {"size": 1, "name": "new-style"}}, "Additional properties"),
    ({"snapshot": {"volume_id": "x"}}, "volume"),
])
def test_bad_volume_bodies_are_nova_400s(cloud, body, wanted):
    path = "/os-volumes"
    assert wanted in _fault(cloud.api.post(path, headers=_h(), json=body), 400,
                            "badRequest")


def test_refusals_as_nova_answers_them(cloud):
    assert _fault(cloud.api.post("/os-volumes", headers=_h(), json={"volume": {
        "size": 1, "snapshot_id": "missing"}}), 404, "itemNotFound") == (
        "Snapshot missing could not be found.")
    assert _fault(cloud.api.post("/os-snapshots", headers=_h(), json={"snapshot": {
        "volume_id": "missing"}}), 404, "itemNotFound") == (
        "Volume missing could not be found.")
    assert cloud.api.post("/os-volumes", headers=_h(who=READER), json={"volume": {
        "size": 1}}).status_code == 403
    for path in ("/os-volumes", "/os-snapshots"):
        assert cloud.api.get(path, headers=_h("2.36")).status_code == 404


def test_os_volumes_boot_is_the_servers_api_until_2_102(cloud):
    made = cloud.api.post("/os-volumes_boot", headers=_h("2.1", {}), json={"server": {
        "name": "old-client", "flavorRef": "1", "imageRef": images.DEFAULT_IMAGE_ID}})
    assert made.status_code == 202, made.text
    server_id = made.json()["server"]["id"]
    cloud.wait_status(server_id, "ACTIVE")
    shown = check(cloud.api.get(f"/os-volumes_boot/{server_id}", headers=_h("2.1", {})),
                  "v2_1", "servers", "get_server")["server"]
    assert shown["name"] == "old-client"
    listed = cloud.api.get("/os-volumes_boot/detail", headers=_h("2.1", {})).json()
    assert [s["id"] for s in listed["servers"]] == [server_id]
    assert cloud.api.get("/os-volumes_boot", headers=_h("2.100", {})).status_code == 200
    assert cloud.api.delete(f"/os-volumes_boot/{server_id}",
                            headers=_h("2.1", {})).status_code == 204
    cloud.wait_gone(server_id)
