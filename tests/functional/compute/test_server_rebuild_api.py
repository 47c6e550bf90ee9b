"""The rebuild server action through real HTTP: the guest made again from a new image
with the body's changes, checked against tempest's schemas; a stopped server stays
stopped; Nova's 400/403/409 answers; a failed rebuild is ERROR with its fault."""

import pytest

from novalite.compute.rpcapi import ComputeAPI
from novalite.context import get_admin_context
from novalite.db.api import instances
from novalite.image import db as images
from novalite.image.record import ImageRecord
from tests.functional.tempest_schemas import check
from tests.waiting import wait_for

MV = "X-OpenStack-Nova-API-Version"
ALICE = {"X-Auth-Token": "alice:proj1"}
OTHER_IMAGE = "9a1b2c3d-4e5f-4a6b-8c7d-0e1f2a3b4c5d"


def _h(version="2.1", who=ALICE):
    return {MV: version, **who}


@pytest.fixture
def server(cloud):
    images.image_create(ImageRecord(
        id=OTHER_IMAGE, name="other", status="active", visibility="public", owner="admin",
        disk_format="qcow2", container_format="bare", size=1024,
        properties={"hw_machine_type": "q35"}))
    created = cloud.api.post("/servers", headers=_h("2.52"), json={"server": {
        "name": "rb", "flavorRef": "1", "imageRef": images.DEFAULT_IMAGE_ID,
        "metadata": {"old": "1"}, "networks": "none"}})
    server_id = created.json()["server"]["id"]
    cloud.wait_status(server_id, "ACTIVE")
    return server_id


def _rebuild(cloud, server_id, version="2.1", who=ALICE, **body):
    return cloud.api.post(f"/servers/{server_id}/action", headers=_h(version, who),
                          json={"rebuild": {"imageRef": OTHER_IMAGE, **body}})


@pytest.mark.parametrize(("version", "package"), [("2.1", "v2_1"), ("2.75", "v2_75"),
                                                  ("2.100", "v2_100")])
def test_rebuild_with_a_new_image_and_changes(cloud, server, version, package):
    response = _rebuild(cloud, server, version, name="rebuilt", metadata={"new": "2"},
                        adminPass="s3cret")
    answered = check(response, package, "servers", "rebuild_server_with_admin_pass"
                     )["server"]
    assert (answered["name"], answered["adminPass"], answered["image"]["id"]) == (
        "rebuilt", "s3cret", OTHER_IMAGE)
    assert answered["status"] == "REBUILD"
    shown = cloud.wait_status(server, "ACTIVE")
    assert (shown["image"]["id"], shown["metadata"]) == (OTHER_IMAGE, {"new": "2"})
    latest = cloud.api.get(f"/servers/{server}", headers=_h("2.98")).json()["server"]
    assert latest["image"]["properties"] == {"hw_machine_type": "q35"}
    actions = cloud.api.get(f"/servers/{server}/os-instance-actions").json()[
        "instanceActions"]
    assert actions[0]["action"] == "rebuild"
    events = cloud.api.get(f"/servers/{server}/os-instance-actions/"
                           f"{actions[0]['request_id']}").json()["instanceAction"]["events"]
    assert [(e["event"], e["result"]) for e in events] == [
        ("compute_rebuild_instance", "Success")]


def test_the_answer_is_the_rebuild_asked_however_fast_the_compute(cloud, server,
                                                                  monkeypatch):
    """A compute that has rebuilt the guest by the time it is asked to: the request
    still answers what it recorded (REBUILD), not what the compute made of it since."""
    asked = ComputeAPI.rebuild_instance

    def rebuilt_at_once(self, ctx, host, instance, *args):
        asked(self, ctx, host, instance, *args)
        wait_for(lambda: instances.instance_get(instance.uuid).task_state is None)

    monkeypatch.setattr(ComputeAPI, "rebuild_instance", rebuilt_at_once)
    answered = _rebuild(cloud, server, "2.75", name="quick").json()["server"]
    assert (answered["status"], answered["OS-EXT-STS:task_state"]) == ("REBUILD",
                                                                       "rebuilding")
    assert cloud.server(server)["status"] == "ACTIVE"


def test_a_stopped_server_is_rebuilt_stopped_with_new_keys_and_user_data(cloud, server):
    cloud.api.post(f"/servers/{server}/action", json={"os-stop": None}, headers=ALICE)
    cloud.wait_status(server, "SHUTOFF")
    response = _rebuild(cloud, server, "2.57", key_name=None, user_data="aGVsbG8=",
                        description="again")
    assert response.status_code == 202, response.text
    shown = cloud.wait_status(server, "SHUTOFF")
    assert (shown["key_name"], shown["OS-EXT-STS:task_state"]) == (None, None)
    assert shown["image"]["id"] == OTHER_IMAGE


@pytest.mark.parametrize(("version", "body", "status", "wanted"), [
    ("2.1", {"imageRef": "0b4a2a1c-0000-4000-8000-000000000000"}, 400,
     "Image 0b4a2a1c-0000-4000-8000-000000000000 could not be found."),
    ("2.1", {"personality": [{"path": "/etc/x", "contents": "eA=="}]}, 400,
     "personality is not supported by novalite"),
    ("2.63", {"trusted_image_certificates": ["c1"]}, 400,
     "trusted_image_certificates is not supported by novalite"),
    ("2.53", {"key_name": "k"}, 400, "Additional properties are not allowed"),
    ("2.54", {"key_name": "nope"}, 400, "Invalid key_name provided."),
    ("2.1", {"preserve_ephemeral": "maybe"}, 400, "preserve_ephemeral"),
])
def test_bad_rebuilds_are_400(cloud, server, version, body, status, wanted):
    response = _rebuild(cloud, server, version, **body)
    assert response.status_code == status, response.text
    assert wanted in response.json()["badRequest"]["message"]


def test_rebuild_refused_while_paused_locked_or_not_allowed(cloud, server):
    cloud.api.post(f"/servers/{server}/action", json={"pause": None}, headers=ALICE)
    cloud.wait_status(server, "PAUSED")
    paused = _rebuild(cloud, server)
    assert (paused.status_code, paused.json()["conflictingRequest"]["message"]) == (
        409, f"Cannot 'rebuild' instance {server} while it is in vm_state paused")
    cloud.api.post(f"/servers/{server}/action", json={"unpause": None}, headers=ALICE)
    cloud.wait_status(server, "ACTIVE")
    cloud.api.post(f"/servers/{server}/action", json={"lock": None})
    locked = _rebuild(cloud, server)
    assert locked.status_code == 409
    assert _rebuild(cloud, server, who={"X-Auth-Token": "bob:proj2"}).status_code == 404
    reader = _rebuild(cloud, server, who={"X-Auth-Token": "carol:proj1",
                                          "X-Roles": "reader"})
    assert reader.status_code == 403


def test_a_failed_rebuild_is_error_with_its_fault(cloud, server):
    host = cloud.server(server)["OS-EXT-SRV-ATTR:host"]
    driver = cloud.compute(host).driver

    def broken_spawn(*args, **kwargs):
        raise RuntimeError("the image could not be written")

    driver.spawn = broken_spawn
    assert _rebuild(cloud, server).status_code == 202
    failed = cloud.wait_status(server, "ERROR")
    assert "the image could not be written" in failed["fault"]["message"]
    assert failed["OS-EXT-STS:task_state"] is None


def test_a_compute_restarted_mid_rebuild_leaves_error_on_its_host(cloud, server):
    """As if the compute died between destroying the guest and spawning it again."""
    host = cloud.server(server)["OS-EXT-SRV-ATTR:host"]
    manager = cloud.compute(host)
    ctx = get_admin_context()
    instances.instance_update(server, {"task_state": "rebuild_spawning"})
    manager.driver.destroy(ctx, instances.instance_get(server))
    manager._init_instance(ctx, instances.instance_get(server))
    failed = cloud.wait_status(server, "ERROR")
    assert failed["OS-EXT-SRV-ATTR:host"] == host
    assert failed["OS-EXT-STS:task_state"] is None
    assert failed["fault"]["message"] == (
        f"Task rebuild_spawning was interrupted by a restart of compute {host}")
    assert _rebuild(cloud, server).status_code == 202  # and it can be rebuilt again
    cloud.wait_status(server, "ACTIVE")
