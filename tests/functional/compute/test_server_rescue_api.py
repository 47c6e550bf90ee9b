"""The rescue and unrescue server actions through real HTTP: RESCUE and back with the
instance actions recorded, the password answered, Nova's 409s, and a driver that
cannot rescue leaving the server as it was with a fault."""

import pytest

from novalite.image import db as images
from tests.functional.tempest_schemas import check

ALICE = {"X-Auth-Token": "alice:proj1"}


@pytest.fixture
def server(cloud):
    created = cloud.api.post("/servers", headers=ALICE, json={"server": {
        "name": "rs", "flavorRef": "1", "imageRef": images.DEFAULT_IMAGE_ID}})
    server_id = created.json()["server"]["id"]
    cloud.wait_status(server_id, "ACTIVE")
    return server_id


def _action(cloud, server_id, body):
    return cloud.api.post(f"/servers/{server_id}/action", json=body, headers=ALICE)


def test_rescue_and_unrescue(cloud, server):
    answered = check(_action(cloud, server, {"rescue": {"adminPass": "fix-me"}}), "v2_1",
                     "servers", "rescue_server_with_admin_pass")
    assert answered == {"adminPass": "fix-me"}
    rescued = cloud.wait_status(server, "RESCUE")
    assert (rescued["OS-EXT-STS:vm_state"], rescued["OS-EXT-STS:power_state"]) == (
        "rescued", 1)
    again = _action(cloud, server, {"rescue": None})
    assert (again.status_code, again.json()["conflictingRequest"]["message"]) == (
        409, f"Cannot 'rescue' instance {server} while it is in vm_state rescued")
    assert _action(cloud, server, {"unrescue": None}).status_code == 202
    cloud.wait_status(server, "ACTIVE")
    names = [a["action"] for a in cloud.api.get(
        f"/servers/{server}/os-instance-actions", headers=ALICE).json()["instanceActions"]]
    assert names[:2] == ["unrescue", "rescue"]


def test_rescue_with_another_image_and_the_refusals(cloud, server):
    generated = _action(cloud, server, {"rescue": {
        "rescue_image_ref": images.DEFAULT_IMAGE_ID}})
    assert len(generated.json()["adminPass"]) == 12
    cloud.wait_status(server, "RESCUE")
    assert _action(cloud, server, {"unrescue": None}).status_code == 202
    cloud.wait_status(server, "ACTIVE")
    unrescue = _action(cloud, server, {"unrescue": None})
    assert (unrescue.status_code, unrescue.json()["conflictingRequest"]["message"]) == (
        409, f"Cannot 'unrescue' instance {server} while it is in vm_state active")
    missing = _action(cloud, server, {"rescue": {
        "rescue_image_ref": "0b4a2a1c-0000-4000-8000-000000000000"}})
    assert missing.status_code == 400
    assert _action(cloud, server, {"rescue": {"extra": 1}}).status_code == 400


def test_a_driver_that_cannot_rescue_leaves_the_server_with_a_fault(cloud, server):
    host = cloud.server(server)["OS-EXT-SRV-ATTR:host"]

    def cannot(*args, **kwargs):
        raise NotImplementedError()

    cloud.compute(host).driver.rescue = cannot
    assert _action(cloud, server, {"rescue": None}).status_code == 200
    cloud.settle()
    shown = cloud.wait_status(server, "ACTIVE")
    assert shown["OS-EXT-STS:task_state"] is None
    actions = cloud.api.get(f"/servers/{server}/os-instance-actions",
                            headers=ALICE).json()["instanceActions"]
    detail = cloud.api.get(f"/servers/{server}/os-instance-actions/"
                           f"{actions[0]['request_id']}").json()["instanceAction"]
    assert detail["events"][0]["result"] == "Error"
