"""POST /os-server-external-events through real HTTP: the 2.76 power-update event, which
the fake driver's hosts take (they are powered from outside, as Ironic's nodes are), and
the network service's events, whose bodies tempest's schema knows."""

import uuid

from tests.functional.tempest_schemas import check

MV = "X-OpenStack-Nova-API-Version"


def _send(cloud, version, *events):
    return cloud.api.post("/os-server-external-events", json={"events": list(events)},
                          headers={MV: version})


def _power(server_id, tag=None):
    event = {"name": "power-update", "server_uuid": server_id}
    return {**event, "tag": tag} if tag else event


def test_power_off_then_on_is_a_stop_then_a_start(cloud):
    server_id = cloud.boot()
    cloud.wait_status(server_id, "ACTIVE")
    answered = _send(cloud, "2.76", _power(server_id, "POWER_OFF"))
    assert answered.status_code == 200, answered.text
    assert answered.json()["events"][0]["code"] == 200
    off = cloud.wait_status(server_id, "SHUTOFF")
    assert off["OS-EXT-STS:power_state"] == 4
    assert _send(cloud, "2.76", _power(server_id, "POWER_ON")).status_code == 200
    cloud.wait_status(server_id, "ACTIVE")
    actions = cloud.api.get(f"/servers/{server_id}/os-instance-actions").json()[
        "instanceActions"]
    assert [a["action"] for a in actions][:2] == ["start", "stop"]
    shown = cloud.api.get(f"/servers/{server_id}/os-instance-actions/"
                          f"{actions[0]['request_id']}").json()["instanceAction"]
    assert [(e["event"], e["result"]) for e in shown["events"]] == [
        ("compute_power_update", "Success")]


def test_an_event_that_does_not_apply_changes_nothing(cloud):
    server_id = cloud.boot()
    cloud.wait_status(server_id, "ACTIVE")
    assert _send(cloud, "2.76", _power(server_id, "POWER_ON")).status_code == 200
    cloud.settle()
    assert cloud.server(server_id)["status"] == "ACTIVE"


def test_a_power_update_without_a_tag_or_before_2_76_is_refused(cloud):
    server_id = cloud.boot()
    cloud.wait_status(server_id, "ACTIVE")
    untagged = _send(cloud, "2.76", _power(server_id),
                     {"name": "network-changed", "server_uuid": server_id})
    assert untagged.status_code == 207, untagged.text
    assert [(e["code"], e["status"]) for e in untagged.json()["events"]] == [
        (400, "failed"), (200, "completed")]
    early = _send(cloud, "2.75", _power(server_id, "POWER_OFF"))
    assert early.status_code == 400
    assert "power-update" in early.json()["badRequest"]["message"]


def test_a_network_event_answers_tempest_s_shape_to_an_admin_and_404_when_unknown(cloud):
    server_id = cloud.boot()
    event = {"name": "network-changed", "server_uuid": server_id}
    sent = check(_send(cloud, "2.1", event), "v2_1", "server_external_events", "create")
    assert [(e["code"], e["status"]) for e in sent["events"]] == [(200, "completed")]
    refused = cloud.api.post("/os-server-external-events", json={"events": [event]},
                             headers={"X-Auth-Token": "alice:p1"})
    assert refused.status_code == 403, refused.text
    unknown = _send(cloud, "2.1", {**event, "server_uuid": str(uuid.uuid4())})
    assert unknown.status_code == 404, unknown.text  # as Nova: the events, each failed
    assert [(e["code"], e["status"]) for e in unknown.json()["events"]] == [(404, "failed")]
