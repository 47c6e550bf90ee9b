"""The createBackup server action through real HTTP: backups are snapshots marked with
their type, and the server's compute keeps the newest `rotation` of each type (tempest's
schemas; Nova's 400 and 409)."""

import pytest

from novalite.db.api import instances
from novalite.image import db as images
from tests.functional.tempest_schemas import check

MV = "X-OpenStack-Nova-API-Version"
ALICE = {"X-Auth-Token": "alice:proj1"}


@pytest.fixture
def server(cloud):
    created = cloud.api.post("/servers", headers=ALICE, json={"server": {
        "name": "backed-up", "flavorRef": "1", "imageRef": images.DEFAULT_IMAGE_ID}})
    server_id = created.json()["server"]["id"]
    cloud.wait_status(server_id, "ACTIVE")
    return server_id


def _backup(cloud, server_id, version="2.45", **body):
    return cloud.api.post(f"/servers/{server_id}/action", headers={MV: version, **ALICE},
                          json={"createBackup": {"name": "bk", "backup_type": "daily",
                                                 "rotation": 2, **body}})


def _done(cloud, server_id):
    cloud.wait(lambda: cloud.server(server_id)["OS-EXT-STS:task_state"] is None)
    cloud.settle()


def _backups(cloud, server_id, backup_type="daily") -> list[str]:
    listed = cloud.api.get(f"{cloud.base_url}/image/v2/images", headers=ALICE, params={
        "instance_uuid": server_id, "backup_type": backup_type, "sort_key": "created_at",
        "sort_dir": "asc"}).json()["images"]
    return [image["name"] for image in listed]


def test_the_newest_backups_of_a_type_are_kept(cloud, server):
    for name in ("bk1", "bk2", "bk3"):
        body = check(_backup(cloud, server, name=name), "v2_45", "servers", "create_backup")
        _done(cloud, server)
        image = images.image_get(body["image_id"])
        assert {k: image.properties[k] for k in ("image_type", "backup_type",
                                                  "instance_uuid")} == {
            "image_type": "backup", "backup_type": "daily", "instance_uuid": server}
    assert _backups(cloud, server) == ["bk2", "bk3"]
    check(_backup(cloud, server, name="weekly1", backup_type="weekly", rotation="1"),
          "v2_45", "servers", "create_backup")
    _done(cloud, server)
    assert (_backups(cloud, server), _backups(cloud, server, "weekly")) == (
        ["bk2", "bk3"], ["weekly1"])
    actions = cloud.api.get(f"/servers/{server}/os-instance-actions",
                            headers=ALICE).json()["instanceActions"]
    assert [a["action"] for a in actions[:4]] == ["createBackup"] * 4


def test_before_2_45_a_location_unless_nothing_is_kept(cloud, server):
    kept = _backup(cloud, server, "2.44")
    assert check(kept, "v2_1", "servers", "create_backup") is None
    assert kept.headers["location"].startswith(f"{cloud.base_url}/image/images/")
    _done(cloud, server)
    none_kept = _backup(cloud, server, "2.44", rotation=0)
    assert none_kept.status_code == 202 and "location" not in none_kept.headers
    _done(cloud, server)
    assert _backups(cloud, server) == []


def test_bad_backups(cloud, server):
    for body in ({"rotation": -1}, {"rotation": "two"}, {"backup_type": 7},
                 {"extra": True}):
        assert _backup(cloud, server, **body).status_code == 400, body
    assert cloud.api.post(f"/servers/{server}/action", headers=ALICE, json={
        "createBackup": {"name": "bk", "rotation": 1}}).status_code == 400
    assert cloud.api.post(f"/servers/{server}/action", json={"lock": None}).status_code == 202
    assert _backup(cloud, server).status_code == 202  # a lock does not stop a backup
    _done(cloud, server)
    instances.instance_update(server, {"task_state": "image_backup"})
    busy = _backup(cloud, server)
    assert busy.json()["conflictingRequest"]["message"] == (
        f"Cannot 'createBackup' instance {server} while it is in task_state image_backup")
