"""Pause, unpause, suspend, resume and os-getConsoleOutput through the HTTP API of the
all-in-one: Nova's states, texts, policies and lock rules, and how the other power
actions treat a paused or suspended server."""

from __future__ import annotations

import pytest

from novalite.db.api import actions, instances
from tests.functional.test_server_actions_api import (
    ALICE,
    CAROL_READER,
    _act,
    _boot,
    _conflict,
    _events,
    _settled,
    _tempest_valid,
)


@pytest.fixture
def cloud(cloud_factory):
    return cloud_factory(hosts=1)


def _states(server: dict) -> tuple:
    return (server["status"], server["OS-EXT-STS:vm_state"], server["OS-EXT-STS:power_state"],
            server["OS-EXT-STS:task_state"])


def _console(cloud, server_id, length=None, headers=ALICE, omit=False):
    body = {} if omit else {"length": length}
    return _act(cloud, server_id, {"os-getConsoleOutput": body}, headers=headers)


def test_pause_and_unpause_walk_nova_states(cloud):
    server_id = _boot(cloud)
    response = _act(cloud, server_id, {"pause": None})
    assert response.status_code == 202 and response.content == b""
    server = _settled(cloud, server_id, "PAUSED")
    assert _states(server) == ("PAUSED", "paused", 3, None)
    _tempest_valid(server)
    assert cloud.wait(_events(server_id, "pause")) == {"compute_pause_instance": "Success"}

    assert _act(cloud, server_id, {"unpause": None}).status_code == 202
    assert _states(_settled(cloud, server_id, "ACTIVE")) == ("ACTIVE", "active", 1, None)
    assert cloud.wait(_events(server_id, "unpause")) == {"compute_unpause_instance": "Success"}


def test_suspend_and_resume_walk_nova_states(cloud):
    server_id = _boot(cloud)
    assert _act(cloud, server_id, {"suspend": None}).status_code == 202
    server = _settled(cloud, server_id, "SUSPENDED")
    assert _states(server) == ("SUSPENDED", "suspended", 7, None)
    _tempest_valid(server)
    assert cloud.wait(_events(server_id, "suspend")) == {"compute_suspend_instance": "Success"}

    assert _act(cloud, server_id, {"resume": None}).status_code == 202
    assert _states(_settled(cloud, server_id, "ACTIVE")) == ("ACTIVE", "active", 1, None)
    assert cloud.wait(_events(server_id, "resume")) == {"compute_resume_instance": "Success"}
    names = [a["action"] for a in actions.actions_get(server_id)]
    assert names == ["create", "suspend", "resume"]


def test_the_wrong_states_are_refused_as_nova_words_it(cloud):
    server_id = _boot(cloud)
    for action in ("unpause", "resume"):
        _conflict(_act(cloud, server_id, {action: None}),
                  f"Cannot '{action}' instance {server_id} while it is in vm_state active")
    _act(cloud, server_id, {"os-stop": None})
    _settled(cloud, server_id, "SHUTOFF")
    for action in ("pause", "suspend"):
        _conflict(_act(cloud, server_id, {action: None}),
                  f"Cannot '{action}' instance {server_id} while it is in vm_state stopped")
    _act(cloud, server_id, {"os-start": None})
    _settled(cloud, server_id, "ACTIVE")
    instances.instance_update(server_id, {"task_state": "rebooting"})
    _conflict(_act(cloud, server_id, {"pause": None}),
              f"Cannot 'pause' instance {server_id} while it is in task_state rebooting")


def test_a_paused_server_is_not_stopped_or_soft_rebooted_but_hard_rebooted(cloud):
    server_id = _boot(cloud)
    _act(cloud, server_id, {"pause": None})
    _settled(cloud, server_id, "PAUSED")
    for body, action in (({"os-stop": None}, "stop"), ({"reboot": {"type": "SOFT"}}, "reboot"),
                         ({"suspend": None}, "suspend"), ({"pause": None}, "pause")):
        _conflict(_act(cloud, server_id, body),
                  f"Cannot '{action}' instance {server_id} while it is in vm_state paused")
    assert _act(cloud, server_id, {"reboot": {"type": "HARD"}}).status_code == 202
    assert _states(_settled(cloud, server_id, "ACTIVE")) == ("ACTIVE", "active", 1, None)


def test_a_suspended_server_is_hard_rebooted_or_deleted(cloud):
    server_id = _boot(cloud)
    _act(cloud, server_id, {"suspend": None})
    _settled(cloud, server_id, "SUSPENDED")
    _conflict(_act(cloud, server_id, {"os-start": None}),
              f"Cannot 'start' instance {server_id} while it is in vm_state suspended")
    assert _act(cloud, server_id, {"reboot": {"type": "HARD"}}).status_code == 202
    _settled(cloud, server_id, "ACTIVE")
    _act(cloud, server_id, {"suspend": None})
    _settled(cloud, server_id, "SUSPENDED")
    assert cloud.api.delete(f"/servers/{server_id}", headers=ALICE).status_code == 204
    cloud.wait_gone(server_id)
    assert cloud.compute("compute1").driver.list_instances() == []


def test_a_locked_server_refuses_its_owner_but_not_an_admin(cloud):
    server_id = _boot(cloud)
    instances.instance_update(server_id, {"locked": True})
    _conflict(_act(cloud, server_id, {"pause": None}), f"Instance {server_id} is locked")
    _conflict(_act(cloud, server_id, {"suspend": None}), f"Instance {server_id} is locked")
    assert _act(cloud, server_id, {"pause": None}, headers={}).status_code == 202
    _settled(cloud, server_id, "PAUSED")


def test_a_reader_may_read_nothing_of_these(cloud):
    server_id = _boot(cloud)
    for body, rule in (({"pause": None}, "os-pause-server:pause"),
                       ({"unpause": None}, "os-pause-server:unpause"),
                       ({"suspend": None}, "os-suspend-server:suspend"),
                       ({"resume": None}, "os-suspend-server:resume"),
                       ({"os-getConsoleOutput": {}}, "os-console-output")):
        response = _act(cloud, server_id, body, headers=CAROL_READER)
        assert response.status_code == 403, body
        assert response.json()["forbidden"]["message"] == \
            f"Policy doesn't allow os_compute_api:{rule} to be performed."


def test_a_failing_pause_leaves_the_server_active_with_a_fault(cloud):
    server_id = _boot(cloud)
    driver = cloud.compute("compute1").driver

    def broken(instance):
        raise RuntimeError("the hypervisor cannot pause")
    driver.pause = broken
    assert _act(cloud, server_id, {"pause": None}).status_code == 202
    assert cloud.wait(_events(server_id, "pause")) == {"compute_pause_instance": "Error"}
    assert _states(_settled(cloud, server_id, "ACTIVE")) == ("ACTIVE", "active", 1, None)
    assert actions.fault_get_latest([server_id])[server_id]["message"] == \
        "the hypervisor cannot pause"


def test_console_output_whole_and_tailed(cloud):
    server_id = _boot(cloud)
    _act(cloud, server_id, {"os-stop": None})
    _settled(cloud, server_id, "SHUTOFF")
    _act(cloud, server_id, {"os-start": None})
    _settled(cloud, server_id, "ACTIVE")

    whole = _console(cloud, server_id, omit=True)
    assert whole.status_code == 200, whole.text
    output = whole.json()["output"]
    lines = output.splitlines()
    assert f"novalite fake guest {server_id} created on compute1" in lines[0]
    assert any("reboot: Power down" in line for line in lines)
    assert output.endswith("\n")
    for length in (None, -1, "-1"):
        assert _console(cloud, server_id, length).json() == {"output": output}
    assert _console(cloud, server_id, 2).json()["output"].splitlines() == lines[-2:]
    assert _console(cloud, server_id, "1").json()["output"].splitlines() == lines[-1:]
    assert _console(cloud, server_id, 0).json() == {"output": ""}
    assert _console(cloud, server_id, 1000).json() == {"output": output}


def test_console_output_strips_control_characters(cloud):
    server_id = _boot(cloud)
    driver = cloud.compute("compute1").driver
    driver.consoles[server_id].append("\x1b[1mbold\x1b[0m\tand\x07 bell")
    tail = _console(cloud, server_id, 1).json()["output"]
    assert tail == "[1mbold[0m\tand bell\n"


def test_console_output_not_ready_not_available_and_bad_bodies(cloud):
    server_id = _boot(cloud)
    driver = cloud.compute("compute1").driver

    def no_console(ctx, instance):
        raise NotImplementedError()
    driver.get_console_output = no_console
    response = _console(cloud, server_id)
    assert response.status_code == 404
    assert response.json() == {"itemNotFound": {
        "code": 404, "message": "Guest does not have a console available."}}
    del driver.get_console_output

    instances.instance_update(server_id, {"task_state": "deleting"})
    _conflict(_console(cloud, server_id), f"Cannot 'get_console_output' instance {server_id} "
                                          "while it is in task_state deleting")
    instances.instance_update(server_id, {"host": None, "task_state": None})
    _conflict(_console(cloud, server_id), f"Instance {server_id} is not ready")

    for body, message in (({"length": -2}, "Invalid input for field/attribute length."),
                          ({"length": "ten"}, "Invalid input for field/attribute length."),
                          ({"length": 1.5}, "Invalid input for field/attribute length."),
                          ({"lines": 3}, "Invalid input for field/attribute os-getConsoleOutput."),
                          (None, "Invalid input for field/attribute os-getConsoleOutput.")):
        response = _act(cloud, server_id, {"os-getConsoleOutput": body})
        assert response.status_code == 400, (body, response.text)
        assert response.json()["badRequest"]["message"].startswith(message), response.text


@pytest.mark.parametrize("action", ["pause", "unpause", "suspend", "resume"])
def test_the_new_actions_take_any_value_but_nothing_beside(cloud, action):
    server_id = _boot(cloud)
    response = _act(cloud, server_id, {action: None, "os-stop": None})
    assert response.status_code == 400
    assert response.json()["badRequest"]["message"] == "Malformed request body"
