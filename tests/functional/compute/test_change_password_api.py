"""changePassword (`openstack server set --password`) through the HTTP API of the
all-in-one: the guest takes it while the caller waits, Nova's 409s for a guest that
cannot, its 501 for a driver or agent that cannot set one, and the password kept nowhere."""

from __future__ import annotations

import pytest

from novalite import exception
from novalite.db.api import actions
from novalite.objects import states
from novalite.rpc.errors import MessagingTimeout
from tests.functional.tempest_schemas import check
from tests.functional.test_server_actions_api import (
    ALICE,
    BOB,
    CAROL_READER,
    _act,
    _boot,
    _conflict,
    _events,
    _settled,
)

SECRET = "s3cret-Pa55"


@pytest.fixture
def cloud(cloud_factory):
    return cloud_factory(hosts=1)


def _change(cloud, server_id, password=SECRET, headers=ALICE):
    return _act(cloud, server_id, {"changePassword": {"adminPass": password}}, headers)


def test_the_guest_takes_the_password_and_the_server_is_idle_again(cloud):
    server_id = _boot(cloud)
    check(_change(cloud, server_id), "v2_1", "servers", "server_actions_common_schema")
    assert cloud.wait(_events(server_id, "changePassword")) == {
        "compute_set_admin_password": "Success"}
    server = _settled(cloud, server_id, "ACTIVE")
    assert server["OS-EXT-STS:power_state"] == 1
    output = _act(cloud, server_id, {"os-getConsoleOutput": {}}).json()["output"]
    assert "passwd: password for root changed" in output
    assert SECRET not in output


def test_bad_bodies_are_400s(cloud):
    server_id = _boot(cloud)
    for body in ({"changePassword": {}}, {"changePassword": {"adminPass": 1}},
                 {"changePassword": {"adminPass": "x", "user": "root"}},
                 {"changePassword": "x"}):
        assert _act(cloud, server_id, body).status_code == 400, body


def test_refused_in_nova_words_for_states_locks_projects_and_readers(cloud):
    server_id = _boot(cloud)
    assert _change(cloud, server_id, headers=BOB).status_code == 404
    assert _change(cloud, server_id, headers=CAROL_READER).status_code == 403
    assert _act(cloud, server_id, {"lock": None}, headers={}).status_code == 202
    _conflict(_change(cloud, server_id), f"Instance {server_id} is locked")
    assert _act(cloud, server_id, {"unlock": None}, headers={}).status_code == 202
    assert _act(cloud, server_id, {"os-stop": None}).status_code == 202
    _settled(cloud, server_id, "SHUTOFF")
    _conflict(_change(cloud, server_id),
              f"Cannot 'changePassword' instance {server_id} while it is in vm_state stopped")


@pytest.mark.parametrize(("raised", "status", "message"), [
    (exception.QemuGuestAgentNotEnabled(), 409, "QEMU guest agent is not enabled"),
    (exception.SetAdminPasswdNotSupported(), 409, "Set admin password is not supported"),
    (exception.AdminPasswordNotImplemented(), 501, "Unable to set password on instance"),
    (RuntimeError(f"agent said no to {SECRET}"), 409,
     "Failed to set admin password on {id} because error setting admin password"),
])
def test_a_guest_that_cannot_take_it_gets_novas_answer_and_stays_usable(
        cloud, raised, status, message):
    server_id = _boot(cloud)
    driver = cloud.compute("compute1").driver

    def refuse(instance, image_meta, new_pass):
        raise raised
    driver.set_admin_password = refuse
    response = _change(cloud, server_id)
    assert response.status_code == status, response.text
    assert next(iter(response.json().values()))["message"] == message.format(id=server_id)
    assert cloud.wait(_events(server_id, "changePassword")) == {
        "compute_set_admin_password": "Error"}
    fault = actions.fault_get_latest([server_id])[server_id]
    assert SECRET not in fault["message"] and SECRET not in (fault["details"] or "")
    _settled(cloud, server_id, "ACTIVE")
    del driver.set_admin_password
    assert _change(cloud, server_id).status_code == 202


def test_a_compute_that_does_not_answer_leaves_the_server_idle(cloud, monkeypatch):
    server_id = _boot(cloud)

    def silent(self, ctx, host, instance, new_pass):
        raise MessagingTimeout("Timed out waiting for a reply")
    monkeypatch.setattr("novalite.compute.rpcapi.ComputeAPI.set_admin_password", silent)
    _conflict(_change(cloud, server_id), f"Failed to set admin password on {server_id} "
                                         "because compute compute1 did not answer")
    server = cloud.server(server_id)
    assert (server["status"], server["OS-EXT-STS:task_state"]) == ("ACTIVE", None)


def test_the_server_shows_password_while_the_guest_takes_it(cloud):
    server_id = _boot(cloud)
    driver = cloud.compute("compute1").driver
    seen = []

    def watch(instance, image_meta, new_pass):
        seen.append(cloud.server(server_id))
    driver.set_admin_password = watch
    assert _change(cloud, server_id).status_code == 202
    assert (seen[0]["status"], seen[0]["OS-EXT-STS:task_state"]) == (
        "PASSWORD", states.UPDATING_PASSWORD)
