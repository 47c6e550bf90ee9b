"""Nova's versioned notifications from the all-in-one: a server's boot, stop and delete
seen by an in-process notification listener, in Nova's order and shapes."""

from __future__ import annotations

import pytest

from tests import notifications


@pytest.fixture
def sink(conf):
    notifications.enable(conf, notify_on_state_change="vm_and_task_state")
    listening = notifications.Sink()
    yield listening
    listening.stop()


def test_boot_stop_delete_send_nova_s_instance_notifications(cloud_factory, sink):
    cloud = cloud_factory(hosts=1)
    started = sink.wait("service.update")
    assert started["publisher_id"].startswith("nova-")

    server_id = cloud.boot("vm1")
    end = sink.wait("instance.create.end", server_id)
    data = end["payload"]["nova_object.data"]
    assert end["payload"]["nova_object.name"] == "InstanceCreatePayload"
    assert (data["state"], data["power_state"], data["task_state"]) == ("active", "running",
                                                                        None)
    assert end["publisher_id"] == f"nova-compute:{data['host']}"
    assert data["flavor"]["nova_object.name"] == "FlavorPayload"
    assert sink.events("scheduler.select_destinations") == [
        "scheduler.select_destinations.start", "scheduler.select_destinations.end"]

    response = cloud.api.post(f"/servers/{server_id}/action", json={"os-stop": None})
    assert response.status_code == 202, response.text
    off = sink.wait("instance.power_off.end", server_id)["payload"]["nova_object.data"]
    assert (off["state"], off["power_state"]) == ("stopped", "shutdown")

    assert cloud.api.delete(f"/servers/{server_id}").status_code == 204
    gone = sink.wait("instance.delete.end", server_id)["payload"]["nova_object.data"]
    assert gone["state"] == "deleted" and gone["deleted_at"] == gone["terminated_at"]

    assert sink.events("instance.", server_id) == [
        "instance.create.start", "instance.update", "instance.update", "instance.update",
        "instance.create.end",
        "instance.power_off.start", "instance.update", "instance.power_off.end",
        "instance.delete.start", "instance.shutdown.start", "instance.shutdown.end",
        "instance.delete.end"]
