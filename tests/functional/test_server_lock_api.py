"""The lock and unlock server actions through real HTTP: who may lock and unlock, the
2.73 reason in views and the `locked` filter, actions refused while locked, and the
instance actions recorded."""

from novalite.image import db as images
from tests.functional.tempest_schemas import check

MV = "X-OpenStack-Nova-API-Version"
ALICE = {"X-Auth-Token": "alice:proj1"}


def _h(version="2.1", who=None):
    return {MV: version, **(who or {})}


def _action(cloud, server_id, body, version="2.1", who=ALICE):
    return cloud.api.post(f"/servers/{server_id}/action", json=body, headers=_h(version, who))


def _server(cloud):
    created = cloud.api.post("/servers", headers=ALICE, json={"server": {
        "name": "locked", "flavorRef": "1", "imageRef": images.DEFAULT_IMAGE_ID}})
    server_id = created.json()["server"]["id"]
    cloud.wait_status(server_id, "ACTIVE")
    return server_id


def test_an_owner_locks_with_a_reason_and_actions_are_refused_until_unlocked(cloud):
    server_id = _server(cloud)
    assert _action(cloud, server_id, {"lock": {"locked_reason": "maintenance"}}, "2.73"
                   ).status_code == 202
    shown = check(cloud.api.get(f"/servers/{server_id}", headers=_h("2.73", ALICE)), "v2_73",
                  "servers", "get_server")["server"]
    assert (shown["locked"], shown["locked_reason"]) == (True, "maintenance")
    listed = cloud.api.get("/servers?locked=true", headers=_h("2.73", ALICE)).json()
    assert [s["id"] for s in listed["servers"]] == [server_id]
    refused = _action(cloud, server_id, {"os-stop": None})
    assert (refused.status_code, refused.json()["conflictingRequest"]["message"]) == (
        409, f"Instance {server_id} is locked")
    assert _action(cloud, server_id, {"unlock": None}).status_code == 202
    shown = cloud.api.get(f"/servers/{server_id}", headers=_h("2.73", ALICE)).json()["server"]
    assert (shown["locked"], shown["locked_reason"]) == (False, None)
    assert _action(cloud, server_id, {"os-stop": None}).status_code == 202
    names = [a["action"] for a in cloud.api.get(
        f"/servers/{server_id}/os-instance-actions", headers=ALICE).json()["instanceActions"]]
    assert names[:3] == ["stop", "unlock", "lock"]


def test_an_owner_cannot_lift_an_admins_lock(cloud):
    server_id = _server(cloud)
    assert _action(cloud, server_id, {"lock": None}, who={}).status_code == 202
    refused = _action(cloud, server_id, {"unlock": None})
    assert (refused.status_code, refused.json()["forbidden"]["message"]) == (
        403, "Policy doesn't allow os_compute_api:os-lock-server:unlock:unlock_override to "
             "be performed.")
    assert _action(cloud, server_id, {"unlock": None}, who={}).status_code == 202


def test_bad_bodies_and_other_projects(cloud):
    server_id = _server(cloud)
    before = _action(cloud, server_id, {"lock": {"locked_reason": "x"}}, "2.72")
    assert before.status_code == 202  # ignored before 2.73, as Nova's schema allows
    cloud.api.post(f"/servers/{server_id}/action", json={"unlock": None}, headers=ALICE)
    too_long = _action(cloud, server_id, {"lock": {"locked_reason": "x" * 256}}, "2.73")
    assert too_long.status_code == 400
    unknown = _action(cloud, server_id, {"lock": {"why": "x"}}, "2.73")
    assert unknown.status_code == 400
    other = _action(cloud, server_id, {"lock": None}, who={"X-Auth-Token": "bob:proj2"})
    assert other.status_code == 404
