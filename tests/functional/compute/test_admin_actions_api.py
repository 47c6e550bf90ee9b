"""An admin's repair actions and the crash dump trigger through the HTTP API of the
all-in-one: os-resetState, injectNetworkInfo and trigger_crash_dump (2.17), with Nova's
states, texts and policies."""

from __future__ import annotations

import pytest

from novalite.db.api import actions, instances
from tests.functional.test_server_actions_api import (
    ALICE,
    _act,
    _boot,
    _conflict,
    _events,
    _settled,
)

MV = "X-OpenStack-Nova-API-Version"


@pytest.fixture
def cloud(cloud_factory):
    return cloud_factory(hosts=1)


def _reset(cloud, server_id, state, headers=None):
    return _act(cloud, server_id, {"os-resetState": {"state": state}}, headers=headers or {})


def test_reset_state_ends_whatever_was_stuck(cloud):
    server_id = _boot(cloud)
    instances.instance_update(server_id, {"task_state": "rebooting", "locked": True,
                                          "locked_by": "admin"})
    assert _reset(cloud, server_id, "error").status_code == 202
    server = cloud.server(server_id)
    assert (server["status"], server["OS-EXT-STS:task_state"]) == ("ERROR", None)
    assert _reset(cloud, server_id, "active").status_code == 202
    assert cloud.server(server_id)["status"] == "ACTIVE"
    recorded = [a["action"] for a in actions.actions_get(server_id)]
    assert recorded[-2:] == ["resetState", "resetState"]


def test_reset_state_is_an_admins_with_one_of_two_states(cloud):
    server_id = _boot(cloud)
    refused = _reset(cloud, server_id, "error", headers=ALICE)
    assert refused.status_code == 403
    for body in ({"state": "stopped"}, {}, {"state": "error", "extra": 1}):
        bad = _act(cloud, server_id, {"os-resetState": body}, headers={})
        assert bad.status_code == 400, bad.text
    assert cloud.server(server_id)["status"] == "ACTIVE"


def test_inject_network_info_is_an_admins(cloud):
    server_id = _boot(cloud)
    assert _act(cloud, server_id, {"injectNetworkInfo": None}, headers={}).status_code == 202
    assert _act(cloud, server_id, {"injectNetworkInfo": None}).status_code == 403


def _dump(cloud, server_id, version="2.17", headers=ALICE, value=None):
    return _act(cloud, server_id, {"trigger_crash_dump": value},
                headers={**headers, MV: version})


def test_trigger_crash_dump_sends_the_guest_an_nmi(cloud):
    server_id = _boot(cloud)
    assert _dump(cloud, server_id).status_code == 202
    assert cloud.wait(_events(server_id, "trigger_crash_dump")) == {
        "compute_trigger_crash_dump": "Success"}
    output = _act(cloud, server_id, {"os-getConsoleOutput": {}}).json()["output"]
    assert "NMI received" in output
    server = cloud.server(server_id)
    assert (server["status"], server["OS-EXT-STS:task_state"]) == ("ACTIVE", None)


def test_trigger_crash_dump_refusals(cloud):
    server_id = _boot(cloud)
    assert _dump(cloud, server_id, version="2.16").status_code == 404
    assert _dump(cloud, server_id, value=1).status_code == 400
    assert _act(cloud, server_id, {"os-stop": None}).status_code == 202
    _settled(cloud, server_id, "SHUTOFF")
    _conflict(_dump(cloud, server_id),
              f"Cannot 'trigger_crash_dump' instance {server_id} while it is in "
              "vm_state stopped")
    assert _act(cloud, server_id, {"lock": None}, headers={}).status_code == 202
    _conflict(_dump(cloud, server_id), f"Instance {server_id} is locked")
