"""Server power actions through the HTTP API of the all-in-one: os-stop, os-start and
reboot, their state checks, policy and scoping, a failing hypervisor, and the power-state
sync that reconciles the database with what the hypervisor says."""

from __future__ import annotations

import pytest
from tempest.lib.api_schema.response.compute.v2_1 import servers as tempest_v2_1
from tempest.lib.common import jsonschema_validator

from novalite.context import get_admin_context
from novalite.db.api import actions, instances
from novalite.image import db as images

ALICE = {"X-Auth-Token": "alice:proj1"}
BOB = {"X-Auth-Token": "bob:proj2"}
CAROL_READER = {"X-Auth-Token": "carol:proj1", "X-Roles": "reader"}


def _act(cloud, server_id, body, headers=ALICE):
    return cloud.api.post(f"/servers/{server_id}/action", json=body, headers=headers)


def _boot(cloud, name="vm", headers=ALICE) -> str:
    body = {"server": {"name": name, "flavorRef": "1", "imageRef": images.DEFAULT_IMAGE_ID}}
    response = cloud.api.post("/servers", json=body, headers=headers)
    assert response.status_code == 202, response.text
    server_id = response.json()["server"]["id"]
    cloud.wait_status(server_id, "ACTIVE")
    return server_id


def _settled(cloud, server_id, status):
    """The server in `status` with no task under way."""
    return cloud.wait(lambda: (s := cloud.server(server_id))["status"] == status
                      and s["OS-EXT-STS:task_state"] is None and s)


def _events(server_id, action):
    """The finished events of the latest `action` on the server: {event: result}."""
    def finished():
        found = [a for a in actions.actions_get(server_id) if a["action"] == action]
        return (found and found[-1]["finish_time"]
                and {e["event"]: e["result"] for e in found[-1]["events"]})
    return finished


def _tempest_valid(server: dict) -> None:
    """As tempest's client checks a 2.1 GET /servers/{id} answer."""
    jsonschema_validator.JSONSCHEMA_VALIDATOR(
        tempest_v2_1.get_server["response_body"],
        format_checker=jsonschema_validator.FORMAT_CHECKER).validate({"server": server})


def _conflict(response, message):
    assert response.status_code == 409, response.text
    assert response.json() == {"conflictingRequest": {"code": 409, "message": message}}


@pytest.fixture
def cloud(cloud_factory):
    return cloud_factory(hosts=1)


def test_stop_start_and_reboot_walk_nova_states(cloud):
    server_id = _boot(cloud)

    assert _act(cloud, server_id, {"os-stop": None}).status_code == 202
    server = _settled(cloud, server_id, "SHUTOFF")
    assert (server["OS-EXT-STS:vm_state"], server["OS-EXT-STS:power_state"]) == ("stopped", 4)
    _tempest_valid(server)
    assert cloud.wait(_events(server_id, "stop")) == {"compute_stop_instance": "Success"}

    assert _act(cloud, server_id, {"os-start": None}).status_code == 202
    server = _settled(cloud, server_id, "ACTIVE")
    assert (server["OS-EXT-STS:vm_state"], server["OS-EXT-STS:power_state"]) == ("active", 1)
    assert cloud.wait(_events(server_id, "start")) == {"compute_start_instance": "Success"}

    for reboot_type in ("SOFT", "hard"):
        response = _act(cloud, server_id, {"reboot": {"type": reboot_type}})
        assert response.status_code == 202 and response.content == b""
        server = _settled(cloud, server_id, "ACTIVE")
        assert server["OS-EXT-STS:power_state"] == 1
    assert cloud.wait(_events(server_id, "reboot")) == {"compute_reboot_instance": "Success"}
    names = [a["action"] for a in actions.actions_get(server_id)]
    assert names == ["create", "stop", "start", "reboot", "reboot"]


def test_a_hard_reboot_starts_a_stopped_server(cloud):
    server_id = _boot(cloud)
    _act(cloud, server_id, {"os-stop": None})
    _settled(cloud, server_id, "SHUTOFF")
    assert _act(cloud, server_id, {"reboot": {"type": "HARD"}}).status_code == 202
    assert _settled(cloud, server_id, "ACTIVE")["OS-EXT-STS:power_state"] == 1


def test_actions_from_the_wrong_state_are_refused_as_nova_words_it(cloud):
    server_id = _boot(cloud)
    _conflict(_act(cloud, server_id, {"os-start": None}),
              f"Cannot 'start' instance {server_id} while it is in vm_state active")
    _act(cloud, server_id, {"os-stop": None})
    _settled(cloud, server_id, "SHUTOFF")
    _conflict(_act(cloud, server_id, {"os-stop": None}),
              f"Cannot 'stop' instance {server_id} while it is in vm_state stopped")
    _conflict(_act(cloud, server_id, {"reboot": {"type": "SOFT"}}),
              f"Cannot 'reboot' instance {server_id} while it is in vm_state stopped")
    # a task under way blocks another action
    instances.instance_update(server_id, {"task_state": "powering-on"})
    _conflict(_act(cloud, server_id, {"reboot": {"type": "HARD"}}),
              f"Cannot 'reboot' instance {server_id} while it is in task_state powering-on")


def test_a_locked_server_refuses_its_owner_but_not_an_admin(cloud):
    server_id = _boot(cloud)
    instances.instance_update(server_id, {"locked": True})
    _conflict(_act(cloud, server_id, {"os-stop": None}), f"Instance {server_id} is locked")
    _conflict(_act(cloud, server_id, {"reboot": {"type": "HARD"}}),
              f"Instance {server_id} is locked")
    _conflict(cloud.api.delete(f"/servers/{server_id}", headers=ALICE),
              f"Instance {server_id} is locked")
    assert _act(cloud, server_id, {"os-stop": None}, headers={}).status_code == 202
    _settled(cloud, server_id, "SHUTOFF")


def test_a_server_not_on_a_host_yet_is_not_ready(cloud):
    server_id = _boot(cloud)
    instances.instance_update(server_id, {"host": None})
    _conflict(_act(cloud, server_id, {"os-stop": None}), f"Instance {server_id} is not ready")


def test_unknown_and_other_projects_servers_are_not_found(cloud):
    server_id = _boot(cloud)
    missing = "00000000-0000-0000-0000-000000000000"
    for target, headers in ((missing, ALICE), (server_id, BOB)):
        response = _act(cloud, target, {"os-stop": None}, headers=headers)
        assert response.status_code == 404
        assert response.json()["itemNotFound"]["message"] == \
            f"Instance {target} could not be found."
    assert cloud.api.get(f"/servers/{server_id}", headers=BOB).status_code == 404
    assert cloud.server(server_id)["status"] == "ACTIVE"


def test_a_reader_may_look_but_not_act(cloud):
    server_id = _boot(cloud)
    assert cloud.api.get(f"/servers/{server_id}", headers=CAROL_READER).status_code == 200
    listed = cloud.api.get("/servers", headers=CAROL_READER).json()["servers"]
    assert [s["id"] for s in listed] == [server_id]
    for body, rule in (({"os-stop": None}, "stop"), ({"os-start": None}, "start"),
                       ({"reboot": {"type": "SOFT"}}, "reboot")):
        response = _act(cloud, server_id, body, headers=CAROL_READER)
        assert response.status_code == 403
        assert response.json()["forbidden"]["message"] == \
            f"Policy doesn't allow os_compute_api:servers:{rule} to be performed."
    response = cloud.api.delete(f"/servers/{server_id}", headers=CAROL_READER)
    assert response.status_code == 403


def test_a_member_lists_only_its_project_unless_an_admin_asks_for_all(cloud):
    mine, theirs = _boot(cloud, "mine"), _boot(cloud, "theirs", headers=BOB)
    listed = cloud.api.get("/servers", headers=ALICE).json()["servers"]
    assert [s["id"] for s in listed] == [mine]
    assert cloud.api.get("/servers/detail?all_tenants=1", headers=ALICE).status_code == 403
    # as in Nova, an admin lists its own project unless it asks for every project
    assert cloud.api.get("/servers").json()["servers"] == []
    everyone = cloud.api.get("/servers/detail?all_tenants=True").json()["servers"]
    assert {s["id"] for s in everyone} == {mine, theirs}
    only_bob = cloud.api.get("/servers?all_tenants&project_id=proj2").json()["servers"]
    assert [s["id"] for s in only_bob] == [theirs]


@pytest.mark.parametrize(("body", "message"), [
    ({"reboot": {"type": "WARM"}}, "Invalid input for field/attribute type. Value: WARM."),
    ({"reboot": {}}, "Invalid input for field/attribute reboot."),
    ({"reboot": {"type": "SOFT", "force": True}}, "Invalid input for field/attribute reboot."),
    ({"reboot": None}, "Invalid input for field/attribute reboot."),
    ({"os-stop": None, "os-start": None}, "Malformed request body"),
    ({"os-explode": None}, "There is no such action: os-explode"),
])
def test_bad_bodies_are_400s(cloud, body, message):
    server_id = _boot(cloud)
    response = _act(cloud, server_id, body)
    assert response.status_code == 400, response.text
    assert response.json()["badRequest"]["message"].startswith(message)


def test_a_failing_stop_leaves_the_server_usable_with_a_fault(cloud):
    server_id = _boot(cloud)
    driver = cloud.compute("compute1").driver

    def broken(instance, timeout=0, retry_interval=0):
        raise RuntimeError("the hypervisor refused")
    driver.power_off = broken
    assert _act(cloud, server_id, {"os-stop": None}).status_code == 202
    assert cloud.wait(_events(server_id, "stop")) == {"compute_stop_instance": "Error"}
    server = _settled(cloud, server_id, "ACTIVE")
    assert server["OS-EXT-STS:power_state"] == 1
    fault = actions.fault_get_latest([server_id])[server_id]
    assert fault["message"] == "the hypervisor refused"
    del driver.power_off  # the hypervisor recovers: the server can be stopped again
    assert _act(cloud, server_id, {"os-stop": None}).status_code == 202
    _settled(cloud, server_id, "SHUTOFF")


def test_a_reboot_that_leaves_the_guest_down_is_an_error(cloud):
    server_id = _boot(cloud)
    driver = cloud.compute("compute1").driver

    def broken(ctx, instance, reboot_type):
        driver.power_off(instance)
        raise RuntimeError("the guest did not come back")
    driver.reboot = broken
    assert _act(cloud, server_id, {"reboot": {"type": "SOFT"}}).status_code == 202
    server = _settled(cloud, server_id, "ERROR")
    assert server["fault"]["message"] == "the guest did not come back"
    assert cloud.wait(_events(server_id, "reboot")) == {"compute_reboot_instance": "Error"}
    del driver.reboot  # a hard reboot is how a user gets it back
    assert _act(cloud, server_id, {"reboot": {"type": "HARD"}}).status_code == 202
    assert _settled(cloud, server_id, "ACTIVE")["OS-EXT-STS:power_state"] == 1


def test_power_sync_stops_a_guest_that_shut_down_by_itself(cloud):
    server_id = _boot(cloud)
    manager = cloud.compute("compute1")
    manager.driver.power_off(instances.instance_get(server_id))
    manager._sync_power_states(get_admin_context())
    server = _settled(cloud, server_id, "SHUTOFF")
    assert (server["OS-EXT-STS:vm_state"], server["OS-EXT-STS:power_state"]) == ("stopped", 4)
    assert cloud.wait(_events(server_id, "stop")) == {"compute_stop_instance": "Success"}


def test_power_sync_stops_a_stopped_servers_guest_found_running(cloud):
    server_id = _boot(cloud)
    _act(cloud, server_id, {"os-stop": None})
    _settled(cloud, server_id, "SHUTOFF")
    manager = cloud.compute("compute1")
    manager.driver.power_on(None, instances.instance_get(server_id))
    manager._sync_power_states(get_admin_context())
    cloud.wait(lambda: len(actions.actions_get(server_id)) == 3)
    server = _settled(cloud, server_id, "SHUTOFF")
    assert server["OS-EXT-STS:power_state"] == 4
    assert manager.driver.get_info(instances.instance_get(server_id)).state == 4


def test_power_sync_records_the_hypervisors_power_state(cloud):
    server_id = _boot(cloud)
    manager = cloud.compute("compute1")
    manager.driver.destroy(None, instances.instance_get(server_id))  # the guest vanished
    manager._sync_power_states(get_admin_context())
    server = cloud.server(server_id)
    assert (server["status"], server["OS-EXT-STS:power_state"]) == ("ACTIVE", 0)
