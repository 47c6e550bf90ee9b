"""/servers/{id}/os-instance-actions through real HTTP, checked against tempest's
schemas per version: events by policy and version, paging and time filters from 2.58,
a deleted server's history from 2.21."""

import datetime

import pytest

from novalite.image import db as images
from tests.functional.tempest_schemas import check

MV = "X-OpenStack-Nova-API-Version"
ALICE = {"X-Auth-Token": "alice:proj1"}
BOB = {"X-Auth-Token": "bob:proj2"}


def _h(version="2.1", who=None):
    return {MV: version, **(who or {})}


def _fault(response, status, name="badRequest"):
    assert response.status_code == status, response.text
    return response.json()[name]["message"]


@pytest.fixture
def server(cloud):
    body = {"server": {"name": "vm", "flavorRef": "1", "imageRef": images.DEFAULT_IMAGE_ID}}
    response = cloud.api.post("/servers", json=body, headers=ALICE)
    server_id = response.json()["server"]["id"]
    cloud.wait_status(server_id, "ACTIVE")
    assert cloud.api.post(f"/servers/{server_id}/action", json={"os-stop": None},
                          headers=ALICE).status_code == 202
    cloud.wait(lambda: cloud.server(server_id)["OS-EXT-STS:task_state"] is None
               and cloud.server(server_id)["status"] == "SHUTOFF")
    return server_id


@pytest.mark.parametrize("version,package", [("2.1", "v2_1"), ("2.58", "v2_58")])
def test_list(cloud, server, version, package):
    listed = check(cloud.api.get(f"/servers/{server}/os-instance-actions",
                                 headers=_h(version, ALICE)),
                   package, "servers", "list_instance_actions")["instanceActions"]
    assert [a["action"] for a in listed] == ["stop", "create"]
    assert {a["user_id"] for a in listed} == {"alice"}


@pytest.mark.parametrize("version,package,who,keys", [
    ("2.1", "v2_1", ALICE, None),
    ("2.1", "v2_1", None, {"event", "start_time", "finish_time", "result", "traceback"}),
    ("2.51", "v2_51", ALICE, {"event", "start_time", "finish_time", "result"}),
    ("2.58", "v2_58", ALICE, {"event", "start_time", "finish_time", "result"}),
    ("2.62", "v2_62", ALICE, {"event", "start_time", "finish_time", "result", "hostId"}),
    ("2.62", "v2_62", None, {"event", "start_time", "finish_time", "result", "hostId",
                             "traceback", "host"}),
    ("2.84", "v2_84", None, {"event", "start_time", "finish_time", "result", "hostId",
                             "traceback", "host", "details"}),
])
def test_show_events_by_version_and_policy(cloud, server, version, package, who, keys):
    listed = cloud.api.get(f"/servers/{server}/os-instance-actions",
                           headers=_h(version, ALICE)).json()["instanceActions"]
    request_id = listed[0]["request_id"]
    shown = check(cloud.api.get(f"/servers/{server}/os-instance-actions/{request_id}",
                                headers=_h(version, who)),
                  package, "servers", "show_instance_action")["instanceAction"]
    assert (shown["action"], shown["request_id"]) == ("stop", request_id)
    if keys is None:
        assert "events" not in shown
    else:
        assert shown["events"] and set(shown["events"][0]) == keys


def test_paging_and_time_filters(cloud, server):
    base = f"/servers/{server}/os-instance-actions"
    first = check(cloud.api.get(f"{base}?limit=1", headers=_h("2.58", ALICE)),
                  "v2_58", "servers", "list_instance_actions")
    assert [a["action"] for a in first["instanceActions"]] == ["stop"]
    marker = first["instanceActions"][0]["request_id"]
    assert f"marker={marker}" in first["links"][0]["href"]
    second = cloud.api.get(f"{base}?limit=1&marker={marker}",
                           headers=_h("2.58", ALICE)).json()
    assert [a["action"] for a in second["instanceActions"]] == ["create"]
    future = (datetime.datetime.now(datetime.UTC) + datetime.timedelta(hours=1)
              ).strftime("%Y-%m-%dT%H:%M:%SZ")
    assert cloud.api.get(f"{base}?changes-since={future}", headers=_h("2.58", ALICE)
                         ).json()["instanceActions"] == []
    assert len(cloud.api.get(f"{base}?changes-before={future}", headers=_h("2.66", ALICE)
                             ).json()["instanceActions"]) == 2


def test_errors(cloud, server):
    base = f"/servers/{server}/os-instance-actions"
    assert _fault(cloud.api.get(f"{base}?marker=nope", headers=_h("2.58")), 400) == (
        "Marker nope could not be found.")
    assert "changes-before" in _fault(cloud.api.get(f"{base}?changes-before=2020-01-01",
                                                    headers=_h("2.58")), 400)
    assert "is not a 'date-time'" in _fault(cloud.api.get(f"{base}?changes-since=x",
                                                          headers=_h("2.58")), 400)
    assert _fault(cloud.api.get(f"{base}?changes-since=2021-01-01T00:00:00Z&changes-before="
                                "2020-01-01T00:00:00Z", headers=_h("2.66")), 400) == (
        "The value of changes-since must be less than or equal to changes-before.")
    assert _fault(cloud.api.get(f"{base}/req-nope"), 404, "itemNotFound") == (
        "Action req-nope not found")
    assert cloud.api.get(base, headers=_h(who=BOB)).status_code == 404
    assert cloud.api.get(base, headers=_h(who={"X-Auth-Token": "x:proj1",
                                               "X-Roles": "other"})).status_code == 403


def test_a_deleted_servers_history_from_2_21(cloud, server):
    assert cloud.api.delete(f"/servers/{server}", headers=ALICE).status_code == 204
    cloud.wait_gone(server)
    base = f"/servers/{server}/os-instance-actions"
    assert cloud.api.get(base, headers=_h("2.20", ALICE)).status_code == 404
    listed = check(cloud.api.get(base, headers=_h("2.21", ALICE)), "v2_1", "servers",
                   "list_instance_actions")["instanceActions"]
    assert [a["action"] for a in listed] == ["delete", "stop", "create"]
