"""Nova's versioned notifications from the all-in-one, seen by an in-process notification
listener, in Nova's order, from Nova's publishers and in its shapes: a server's boot,
stop and delete; its resize steps, live migration steps, evacuation, lock, volume and
interface attach and detach; the API's aggregates, key pairs, groups, flavors, services."""

from __future__ import annotations

import httpx
import pytest
from sqlalchemy import update

from novalite.db import models, session
from novalite.identity import bootstrap
from novalite.image import db as images
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


# (body, microversion, status, action, (state, power_state, task_state) at .start as in
# Nova's samples: the task state the API set (a reboot's is the compute's pending one),
# the rest as before the action)
_STEPS = [
    ({"os-stop": None}, "2.1", 202, "power_off", ("active", "running", "powering-off")),
    ({"os-start": None}, "2.1", 202, "power_on", ("stopped", "shutdown", "powering-on")),
    ({"pause": None}, "2.1", 202, "pause", ("active", "running", "pausing")),
    ({"unpause": None}, "2.1", 202, "unpause", ("paused", "paused", "unpausing")),
    ({"suspend": None}, "2.1", 202, "suspend", ("active", "running", "suspending")),
    ({"resume": None}, "2.1", 202, "resume", ("suspended", "suspended", "resuming")),
    ({"rescue": None}, "2.1", 200, "rescue", ("active", "running", "rescuing")),
    ({"unrescue": None}, "2.1", 202, "unrescue", ("rescued", "running", "unrescuing")),
    ({"reboot": {"type": "HARD"}}, "2.1", 202, "reboot",
     ("active", "running", "reboot_pending_hard")),
    ({"createImage": {"name": "snap"}}, "2.45", 202, "snapshot",
     ("active", "running", "image_snapshot_pending")),
]


def test_an_action_starts_showing_the_server_as_the_api_claimed_it(cloud_factory, sink):
    cloud = cloud_factory(hosts=1)
    server_id, _ = _booted(cloud, sink)
    created = _data(sink.wait("instance.create.start", server_id))
    assert (created["state"], created["power_state"], created["task_state"]) == (
        "building", "pending", None)
    assert (created["host"], created["node"]) == (None, None)  # before its claim

    for body, version, status, action, before in _STEPS:
        _act(cloud, server_id, body, version, status)
        started = _data(sink.wait(f"instance.{action}.start", server_id))
        sink.wait(f"instance.{action}.end", server_id)
        cloud.settle()
        assert (started["state"], started["power_state"], started["task_state"]) == before

    mine = [m for m in sink.received if _data(m).get("uuid") == server_id]
    stop = [m["event_type"] for m in mine].index("instance.power_off.start")
    update = next(m for m in mine[stop:] if m["event_type"] == "instance.update")
    changed = _data(update)["state_update"]["nova_object.data"]
    assert changed == {"old_state": "active", "state": "stopped",
                       "old_task_state": "powering-off", "new_task_state": None}


def test_a_servers_tags_are_in_its_create_and_update_notifications(cloud_factory, sink):
    cloud = cloud_factory(hosts=1)
    response = cloud.api.post("/servers", headers={"X-OpenStack-Nova-API-Version": "2.52"},
                              json={"server": {"name": "tagged", "flavorRef": "1",
                                               "imageRef": images.DEFAULT_IMAGE_ID,
                                               "networks": "none", "tags": ["web", "blue"]}})
    assert response.status_code == 202, response.text
    server_id = response.json()["server"]["id"]
    for event in ("instance.create.start", "instance.create.end"):
        assert sorted(_data(sink.wait(event, server_id))["tags"]) == ["blue", "web"]
    updates = [_data(m) for m in sink.received if m["event_type"] == "instance.update"
               and _data(m).get("uuid") == server_id]
    assert updates and all(sorted(u["tags"]) == ["blue", "web"] for u in updates)


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


def _data(message):
    return message["payload"]["nova_object.data"]


def _act(cloud, server_id, body, version="2.1", status=202):
    response = cloud.api.post(f"/servers/{server_id}/action", json=body,
                              headers={"X-OpenStack-Nova-API-Version": version})
    assert response.status_code == status, response.text


def _by_publisher(sink, prefix, server_id):
    found: dict[str, list[str]] = {}
    for message in sink.received:
        if message["event_type"].startswith(prefix) and _data(message)["uuid"] == server_id:
            found.setdefault(message["publisher_id"], []).append(message["event_type"])
    return found


def _booted(cloud, sink, name="vm"):
    server_id = cloud.boot(name)
    source = _data(sink.wait("instance.create.end", server_id))["host"]
    return server_id, source


def test_each_resize_step_ends_showing_the_server_as_the_step_left_it(cloud_factory, sink):
    cloud = cloud_factory(hosts=2)
    server_id, source = _booted(cloud, sink)

    _act(cloud, server_id, {"resize": {"flavorRef": "2"}})
    finished = _data(sink.wait("instance.resize_finish.end", server_id))
    cloud.wait_status(server_id, "VERIFY_RESIZE")
    prep = sink.wait("instance.resize_prep.end", server_id)
    assert prep["payload"]["nova_object.name"] == "InstanceActionResizePrepPayload"
    assert _data(prep)["task_state"] == "resize_prep"
    resized = _data(sink.wait("instance.resize.end", server_id))
    assert (resized["task_state"], resized["power_state"]) == ("resize_migrated", "shutdown")
    assert (finished["state"], finished["task_state"]) == ("resized", None)
    assert finished["flavor"]["nova_object.data"]["flavorid"] == "2"
    assert sink.wait("instance.resize.end", server_id)["publisher_id"] == (
        f"nova-compute:{source}")

    _act(cloud, server_id, {"revertResize": None})
    reverted = _data(sink.wait("instance.resize_revert.end", server_id))
    reverting = _data(sink.wait("instance.resize_revert.start", server_id))
    assert (reverting["state"], reverting["task_state"]) == ("resized", "resize_reverting")
    assert (reverted["state"], reverted["task_state"], reverted["host"]) == (
        "active", None, source)
    assert reverted["flavor"]["nova_object.data"]["flavorid"] == "1"

    cloud.wait_status(server_id, "ACTIVE")
    _act(cloud, server_id, {"resize": {"flavorRef": "2"}})
    cloud.wait_status(server_id, "VERIFY_RESIZE")
    _act(cloud, server_id, {"confirmResize": None}, status=204)
    confirmed = _data(sink.wait("instance.resize_confirm.end", server_id))
    assert (confirmed["state"], confirmed["task_state"]) == ("active", None)
    assert confirmed["flavor"]["nova_object.data"]["flavorid"] == "2"


def test_a_live_migration_notifies_each_step_on_its_host(cloud_factory, sink):
    cloud = cloud_factory(hosts=2)
    server_id, source = _booted(cloud, sink)
    dest = "compute2" if source == "compute1" else "compute1"

    _act(cloud, server_id, {"os-migrateLive": {"host": dest, "block_migration": "auto"}},
         "2.25")
    post_end = sink.wait("instance.live_migration_post.end", server_id)
    post_dest_end = sink.wait("instance.live_migration_post_dest.end", server_id)
    # each host's in its order; the destination's post step is cast to it, so it may
    # end after the source's (Nova's source waits for it)
    assert _by_publisher(sink, "instance.live_migration", server_id) == {
        f"nova-compute:{dest}": [
            "instance.live_migration_pre.start", "instance.live_migration_pre.end",
            "instance.live_migration_post_dest.start",
            "instance.live_migration_post_dest.end"],
        f"nova-compute:{source}": [
            "instance.live_migration_post.start", "instance.live_migration_post.end"]}
    events = sink.events("instance.live_migration", server_id)
    assert events.index("instance.live_migration_pre.end") < events.index(
        "instance.live_migration_post.start") < events.index(
        "instance.live_migration_post_dest.start")
    pre_end = sink.wait("instance.live_migration_pre.end", server_id)
    assert _data(pre_end)["task_state"] == "migrating"
    assert (_data(post_dest_end)["host"], _data(post_dest_end)["task_state"]) == (dest,
                                                                                  None)
    assert _data(post_end)["task_state"] == "migrating"  # the source's copy, as Nova's

    def fails(*args, **kwargs):
        raise RuntimeError("the copy broke")

    cloud.wait_status(server_id, "ACTIVE")
    cloud.compute(dest).driver.live_migration = fails
    _act(cloud, server_id, {"os-migrateLive": {"host": source, "block_migration": "auto"}},
         "2.25")
    rolled = sink.wait("instance.live_migration_rollback.end", server_id)
    sink.wait("instance.live_migration_rollback_dest.end", server_id)
    assert _by_publisher(sink, "instance.live_migration_rollback", server_id) == {
        f"nova-compute:{dest}": ["instance.live_migration_rollback.start",
                                 "instance.live_migration_rollback.end"],
        f"nova-compute:{source}": ["instance.live_migration_rollback_dest.start",
                                   "instance.live_migration_rollback_dest.end"]}
    assert (_data(rolled)["task_state"], _data(rolled)["host"]) == (None, dest)


def test_evacuate_lock_and_unlock_are_notified_by_the_api(cloud_factory, sink):
    cloud = cloud_factory(hosts=2)
    server_id, source = _booted(cloud, sink)

    _act(cloud, server_id, {"lock": {"locked_reason": "maintenance"}}, "2.73")
    locked = sink.wait("instance.lock", server_id)
    assert locked["publisher_id"].startswith("nova-api:")
    assert locked["payload"]["nova_object.name"] == "InstanceActionPayload"
    assert (_data(locked)["locked"], _data(locked)["locked_reason"]) == (True, "maintenance")
    _act(cloud, server_id, {"unlock": None}, "2.73")
    unlocked = _data(sink.wait("instance.unlock", server_id))
    assert (unlocked["locked"], unlocked["locked_reason"]) == (False, None)

    with session.writer() as s:
        s.execute(update(models.Service).where(models.Service.host == source)
                  .values(forced_down=True))
    _act(cloud, server_id, {"evacuate": {}}, "2.14", status=200)
    scheduled = sink.wait("instance.rebuild_scheduled", server_id)
    evacuated = sink.wait("instance.evacuate", server_id)
    assert evacuated["publisher_id"].startswith("nova-api:")
    assert (_data(evacuated)["task_state"], _data(evacuated)["host"]) == ("rebuilding",
                                                                          source)
    target = cloud.wait_status(server_id, "ACTIVE")["OS-EXT-SRV-ATTR:host"]
    assert scheduled["publisher_id"] == f"nova-conductor:{target}"
    assert scheduled["payload"]["nova_object.name"] == "InstanceActionRebuildPayload"
    assert _data(scheduled)["task_state"] == "rebuilding"
    assert sink.events("instance.evacuate") == ["instance.evacuate"]


def test_volume_and_interface_attach_and_detach_are_notified(cloud_factory, sink):
    cloud = cloud_factory(hosts=1)
    token = {"X-Auth-Token": f"demo:{bootstrap.project_ids('demo')[0]}"}

    def client(path, **headers):
        return httpx.Client(base_url=f"{cloud.base_url}{path}", timeout=30,
                            headers={**token, **headers})

    compute = client("/compute/v2.1", **{"X-OpenStack-Nova-API-Version": "2.70"})
    volumes = client("/volume/v3", **{"OpenStack-API-Version": "volume 3.70"})
    private = client("/networking/v2.0").get("/networks", params={"name": "private"}).json()[
        "networks"][0]["id"]
    made = compute.post("/servers", json={"server": {
        "name": "vm", "flavorRef": "1", "imageRef": images.DEFAULT_IMAGE_ID,
        "networks": [{"uuid": private}]}})
    assert made.status_code == 202, made.text
    server_id = made.json()["server"]["id"]
    host = _data(sink.wait("instance.create.end", server_id))["host"]
    volume = volumes.post("/volumes", json={"volume": {"size": 1}})
    assert volume.status_code == 202, volume.text
    volume_id = volume.json()["volume"]["id"]
    cloud.settle()

    attach = compute.post(f"/servers/{server_id}/os-volume_attachments",
                          json={"volumeAttachment": {"volumeId": volume_id}})
    assert attach.status_code == 200, attach.text
    attached = sink.wait("instance.volume_attach.end", server_id)
    assert (attached["payload"]["nova_object.name"],
            attached["payload"]["nova_object.version"]) == ("InstanceActionVolumePayload",
                                                            "1.7")
    assert _data(attached)["volume_id"] == volume_id
    assert attached["publisher_id"] == f"nova-compute:{host}"
    cloud.settle()
    detach = compute.delete(f"/servers/{server_id}/os-volume_attachments/{volume_id}")
    assert detach.status_code == 202, detach.text
    assert _data(sink.wait("instance.volume_detach.end", server_id))["volume_id"] == volume_id
    cloud.settle()

    def broken(*args, **kwargs):
        raise RuntimeError("no such device")

    cloud.compute(host).driver.attach_volume = broken
    compute.post(f"/servers/{server_id}/os-volume_attachments",
                 json={"volumeAttachment": {"volumeId": volume_id}})
    failed = sink.wait("instance.volume_attach.error", server_id)
    assert failed["priority"] == "ERROR"
    assert _data(failed)["fault"]["nova_object.data"]["exception"] == "RuntimeError"
    cloud.settle()

    plugged = compute.post(f"/servers/{server_id}/os-interface",
                           json={"interfaceAttachment": {"net_id": private}})
    assert plugged.status_code == 200, plugged.text
    port_id = plugged.json()["interfaceAttachment"]["port_id"]
    before = _data(sink.wait("instance.interface_attach.start", server_id))
    after = sink.wait("instance.interface_attach.end", server_id)
    assert after["payload"]["nova_object.name"] == "InstanceActionPayload"
    assert after["publisher_id"] == f"nova-compute:{host}"  # the compute plugs it
    assert len(before["ip_addresses"]) == 1
    assert port_id in [ip["nova_object.data"]["port_uuid"]
                       for ip in _data(after)["ip_addresses"]]
    unplugged = compute.delete(f"/servers/{server_id}/os-interface/{port_id}")
    assert unplugged.status_code == 202, unplugged.text
    detached = _data(sink.wait("instance.interface_detach.end", server_id))
    assert [ip["nova_object.data"]["port_uuid"] for ip in detached["ip_addresses"]] == [
        ip["nova_object.data"]["port_uuid"] for ip in before["ip_addresses"]]

    assert [e for e in sink.events("instance.", server_id)
            if e.startswith(("instance.volume_", "instance.interface_"))] == [
        "instance.volume_attach.start", "instance.volume_attach.end",
        "instance.volume_detach.start", "instance.volume_detach.end",
        "instance.volume_attach.start", "instance.volume_attach.error",
        "instance.interface_attach.start", "instance.interface_attach.end",
        "instance.interface_detach.start", "instance.interface_detach.end"]
