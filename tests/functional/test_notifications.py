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

    assert sink.events("instance.", server_id) == [  # taken first, as Nova's compute
        "instance.update", "instance.create.start", "instance.update", "instance.update",
        "instance.create.end",
        "instance.power_off.start", "instance.update", "instance.power_off.end",
        "instance.delete.start", "instance.shutdown.start", "instance.shutdown.end",
        "instance.delete.end"]


def test_the_api_notifies_aggregates_key_pairs_groups_flavors_and_services(cloud_factory,
                                                                            sink):
    cloud = cloud_factory(hosts=1)

    def ok(response, status=200):
        assert response.status_code == status, response.text
        return response.json() if response.content else None

    agg = ok(cloud.api.post("/os-aggregates", json={"aggregate": {"name": "a1"}}))
    agg_id = agg["aggregate"]["id"]
    ok(cloud.api.post(f"/os-aggregates/{agg_id}/action",
                      json={"add_host": {"host": "compute1"}}))
    added = sink.wait("aggregate.add_host.end")["payload"]["nova_object.data"]
    assert added["hosts"] == ["compute1"]
    ok(cloud.api.post(f"/os-aggregates/{agg_id}/action",
                      json={"add_host": {"host": "compute1"}}), 409)
    assert sink.wait("compute.exception")["publisher_id"].startswith("nova-api:")

    ok(cloud.api.post("/os-keypairs", json={"keypair": {"name": "k1"}}))
    ok(cloud.api.delete("/os-keypairs/k1"), 202)
    group = ok(cloud.api.post("/os-server-groups", json={"server_group": {
        "name": "g1", "policies": ["affinity"]}}))["server_group"]
    ok(cloud.api.delete(f"/os-server-groups/{group['id']}"), 204)
    ok(cloud.api.post("/flavors", json={"flavor": {"name": "f1", "ram": 64, "vcpus": 1,
                                                   "disk": 0, "id": "f1"}}))
    ok(cloud.api.post("/flavors/f1/os-extra_specs",
                      json={"extra_specs": {"hw:cpu_policy": "shared"}}))
    ok(cloud.api.delete("/flavors/f1"), 202)
    ok(cloud.api.put("/os-services/disable", json={"host": "compute1",
                                                   "binary": "novalite-compute"}))

    assert sink.events("aggregate.") == [
        "aggregate.create.start", "aggregate.create.end",
        "aggregate.add_host.start", "aggregate.add_host.end", "aggregate.add_host.start"]
    assert sink.events("keypair.") == ["keypair.create.start", "keypair.create.end",
                                       "keypair.delete.start", "keypair.delete.end"]
    assert sink.events("server_group.") == ["server_group.create", "server_group.delete"]
    assert sink.events("flavor.") == ["flavor.create", "flavor.update", "flavor.delete"]
    update = sink.received[-1]
    assert update["event_type"] == "service.update"
    assert update["publisher_id"] == "nova-compute:compute1"
    assert update["payload"]["nova_object.data"]["disabled"] is True
