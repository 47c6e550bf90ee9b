"""/servers/{id}/os-volume_attachments through real HTTP on the all-in-one (fake driver):
Nova's flow on Cinder's attachments API end to end (the volume reserved, connected over
NBD, in use, detached and available again), each answer checked against tempest's
schema of its microversion, Nova's errors, a server's delete taking its volumes with it,
the roll-backs of a failed attach or detach, and a compute restarted mid-attach."""

from __future__ import annotations

import httpx
import pytest

from novalite import exception
from novalite.conf import CONF
from novalite.db.api import actions, block_devices
from novalite.image import db as images
from novalite.service import assembly
from novalite.volume.exports import Exports
from tests.functional.tempest_schemas import check

MV = "X-OpenStack-Nova-API-Version"
ALICE = {"X-Auth-Token": "alice:proj1"}
BOB = {"X-Auth-Token": "bob:proj2"}


@pytest.fixture
def volumes(cloud):
    return httpx.Client(base_url=f"{cloud.base_url}/volume/v3", timeout=30,
                        headers={**ALICE, "OpenStack-API-Version": "volume 3.70"})


@pytest.fixture
def server(cloud):
    created = cloud.api.post("/servers", headers=ALICE, json={"server": {
        "name": "vm", "flavorRef": "1", "imageRef": _image(cloud)}})
    server_id = created.json()["server"]["id"]
    cloud.wait_status(server_id, "ACTIVE")
    return server_id


def _image(cloud) -> str:
    return images.DEFAULT_IMAGE_ID


def _volume(cloud, volumes: httpx.Client) -> str:
    made = volumes.post("/volumes", json={"volume": {"size": 1}})
    assert made.status_code == 202, made.text
    cloud.settle()
    return str(made.json()["volume"]["id"])


def _volume_status(volumes: httpx.Client, volume_id: str) -> str:
    return str(volumes.get(f"/volumes/{volume_id}").json()["volume"]["status"])


def _attach(cloud, server_id: str, volume_id: str, version: str = "2.1",
            **fields) -> httpx.Response:
    return cloud.api.post(f"/servers/{server_id}/os-volume_attachments",
                          headers={MV: version, **ALICE},
                          json={"volumeAttachment": {"volumeId": volume_id, **fields}})


def _fault(response: httpx.Response, code: int) -> str:
    assert response.status_code == code, response.text
    (body,) = response.json().values()
    return str(body["message"])


def _host(cloud, server_id: str) -> str:
    return str(cloud.api.get(f"/servers/{server_id}").json()["server"][
        "OS-EXT-SRV-ATTR:host"])


def test_attach_list_show_update_and_detach(cloud, server, volumes):
    volume_id = _volume(cloud, volumes)
    attached = check(_attach(cloud, server, volume_id, "2.79", tag="data",
                             delete_on_termination=False),
                     "v2_79", "servers", "attach_volume")["volumeAttachment"]
    assert (attached["device"], attached["tag"], attached["serverId"]) == (
        "/dev/vdb", "data", server)
    cloud.settle()
    volume = volumes.get(f"/volumes/{volume_id}").json()["volume"]
    assert volume["status"] == "in-use"
    assert (volume["attachments"][0]["server_id"], volume["attachments"][0]["device"]) == (
        server, "/dev/vdb")
    connection = cloud.compute(_host(cloud, server)).driver.volumes[server][volume_id]
    assert (connection["driver_volume_type"], connection["serial"]) == ("nbd", volume_id)
    assert connection["data"]["export"] == volume_id

    for version, package in (("2.1", "v2_1"), ("2.70", "v2_70"), ("2.79", "v2_79"),
                             ("2.89", "v2_89")):
        listed = check(cloud.api.get(f"/servers/{server}/os-volume_attachments",
                                     headers={MV: version, **ALICE}),
                       package, "servers", "list_volume_attachments")
        (found,) = listed["volumeAttachments"]
        shown = check(cloud.api.get(f"/servers/{server}/os-volume_attachments/{volume_id}",
                                    headers={MV: version, **ALICE}),
                      package, "servers", "show_volume_attachment")
        assert shown["volumeAttachment"] == found
    assert found["attachment_id"] == volume["attachments"][0]["attachment_id"]
    assert _fault(cloud.api.get(f"/servers/{server}/os-volume_attachments",
                                params={"foo": "1"}, headers={MV: "2.75", **ALICE}),
                  400) == "Additional properties are not allowed ('foo' was unexpected)"
    assert cloud.api.get(f"/servers/{server}/os-volume_attachments",
                         params={"offset": "1"}, headers=ALICE).json() == {
        "volumeAttachments": []}
    shown = cloud.server(server)
    assert shown["os-extended-volumes:volumes_attached"] == [{"id": volume_id}]
    detail = check(cloud.api.get(f"/servers/{server}", headers={MV: "2.79", **ALICE}),
                   "v2_79", "servers", "get_server")
    assert detail["server"]["os-extended-volumes:volumes_attached"] == [
        {"id": volume_id, "delete_on_termination": False}]

    path = f"/servers/{server}/os-volume_attachments/{volume_id}"
    changed = cloud.api.put(path, headers={MV: "2.85", **ALICE}, json={"volumeAttachment": {
        "volumeId": volume_id, "delete_on_termination": True, "tag": "data"}})
    check(changed, "v2_1", "servers", "update_attached_volume")
    assert cloud.api.get(path, headers={MV: "2.79", **ALICE}).json()["volumeAttachment"][
        "delete_on_termination"] is True
    assert _fault(cloud.api.put(path, headers={MV: "2.85", **ALICE}, json={
        "volumeAttachment": {"volumeId": volume_id, "device": "/dev/vdc"}}), 400) == (
        "The device property is not mutable")
    other = _volume(cloud, volumes)
    assert _fault(cloud.api.put(path, headers={MV: "2.85", **ALICE}, json={
        "volumeAttachment": {"volumeId": other}}), 403) == (
        "Policy doesn't allow os_compute_api:os-volumes-attachments:swap to be performed.")
    assert _fault(cloud.api.put(path, json={  # the admin's, as a service's
        "volumeAttachment": {"volumeId": other}}), 409) == (
        f"volume {volume_id} is not migrating; this API should only be called by Cinder")

    check(cloud.api.delete(path, headers=ALICE), "v2_1", "servers", "detach_volume")
    cloud.settle()
    assert _volume_status(volumes, volume_id) == "available"
    assert volumes.get(f"/volumes/{volume_id}").json()["volume"]["attachments"] == []
    assert server not in cloud.compute(_host(cloud, server)).driver.volumes
    assert cloud.server(server)["os-extended-volumes:volumes_attached"] == []
    assert Exports(CONF.host).known() == []
    events = {a["action"]: {e["event"] for e in a["events"]}
              for a in actions.actions_get(server)}
    assert events["attach_volume"] == {"compute_attach_volume"}
    assert events["detach_volume"] == {"compute_detach_volume"}


def test_nova_errors(cloud, server, volumes):
    missing = "00000000-0000-4000-8000-000000000000"
    assert _fault(_attach(cloud, server, missing), 404) == (
        f"Volume {missing} could not be found.")
    assert "'x' is not a 'uuid'" in _fault(_attach(cloud, server, "x"), 400)
    volume_id = _volume(cloud, volumes)
    assert "tag" in _fault(_attach(cloud, server, volume_id, "2.48", tag="t"), 400)
    assert "delete_on_termination" in _fault(_attach(
        cloud, server, volume_id, "2.78", delete_on_termination=True), 400)
    assert "device" in _fault(_attach(cloud, server, volume_id, device="vdb"), 400)
    assert _fault(_attach(cloud, server, volume_id, device="/dev/vda"), 409) == (
        "The supplied device path (/dev/vda) is in use.")
    assert _fault(cloud.api.post(f"/servers/{server}/os-volume_attachments", headers=BOB,
                                 json={"volumeAttachment": {"volumeId": volume_id}}),
                  404) == f"Instance {server} could not be found."

    assert _attach(cloud, server, volume_id, device="/dev/vdz").status_code == 200
    cloud.settle()
    assert _fault(_attach(cloud, server, volume_id), 400) == (
        f"Invalid volume: volume {volume_id} is already attached to instances: {server}")
    reserved = _volume(cloud, volumes)  # in use by another consumer of the volume service
    volumes.post("/attachments", json={"attachment": {"volume_uuid": reserved}})
    assert _fault(_attach(cloud, server, reserved), 400) == (
        f"Invalid input received: Invalid volume: Volume {reserved} status must be "
        "available or downloading to reserve, but the current status is reserved.")
    other = _volume(cloud, volumes)
    assert _fault(cloud.api.delete(f"/servers/{server}/os-volume_attachments/{other}",
                                   headers=ALICE), 404) == (
        f"Instance {server} is not attached to volume {other}")
    assert _fault(cloud.api.get(f"/servers/{server}/os-volume_attachments/{other}",
                                headers=ALICE), 404) == (
        f"Instance {server} is not attached to volume {other}")

    root = block_devices.bdm_create({"instance_uuid": server, "source_type": "volume",
                                     "destination_type": "volume", "volume_id": other,
                                     "boot_index": 0, "device_name": "/dev/vda"})
    assert _fault(cloud.api.delete(f"/servers/{server}/os-volume_attachments/{other}",
                                   headers=ALICE), 400) == "Cannot detach a root device volume"
    block_devices.bdm_destroy(root.uuid)

    assert cloud.api.post(f"/servers/{server}/action", json={"suspend": None},
                          headers=ALICE).status_code == 202
    cloud.wait_status(server, "SUSPENDED")
    fresh = _volume(cloud, volumes)
    assert _fault(_attach(cloud, server, fresh), 409) == (
        f"Cannot 'attach_volume' instance {server} while it is in vm_state suspended")
    assert _fault(cloud.api.delete(f"/servers/{server}/os-volume_attachments/{volume_id}",
                                   headers=ALICE), 409) == (
        f"Cannot 'detach_volume' instance {server} while it is in vm_state suspended")


def test_a_deleted_server_detaches_its_volumes_and_deletes_those_it_should(
        cloud, server, volumes):
    kept, dropped = _volume(cloud, volumes), _volume(cloud, volumes)
    assert _attach(cloud, server, kept).status_code == 200
    assert _attach(cloud, server, dropped, "2.79",
                   delete_on_termination=True).status_code == 200
    cloud.settle()
    assert cloud.server(server)["os-extended-volumes:volumes_attached"] == [
        {"id": kept}, {"id": dropped}]
    assert cloud.api.delete(f"/servers/{server}", headers=ALICE).status_code == 204
    cloud.wait_gone(server)
    cloud.settle()
    assert _volume_status(volumes, kept) == "available"
    assert volumes.get(f"/volumes/{dropped}").status_code == 404
    assert block_devices.bdm_get_all_by_instance(server) == []


def test_a_failed_attach_or_detach_leaves_the_volume_as_it_was(cloud, server, volumes,
                                                               monkeypatch):
    driver = cloud.compute(_host(cloud, server)).driver
    volume_id = _volume(cloud, volumes)

    def broken(*args, **kwargs):
        raise exception.NovaliteException("the disk would not plug")

    with monkeypatch.context() as patched:
        patched.setattr(driver, "attach_volume", broken)
        assert _attach(cloud, server, volume_id).status_code == 200
        cloud.settle()
    assert _volume_status(volumes, volume_id) == "available"
    assert block_devices.bdm_get_all_by_instance(server) == []
    attach = next(a for a in actions.actions_get(server) if a["action"] == "attach_volume")
    assert attach["events"][0]["result"] == "Error"
    assert "the disk would not plug" in attach["events"][0]["traceback"]

    assert _attach(cloud, server, volume_id).status_code == 200
    cloud.settle()
    with monkeypatch.context() as patched:
        patched.setattr(driver, "detach_volume", lambda *args: (_ for _ in ()).throw(
            exception.DeviceDetachFailed(device="/dev/vdb", reason="the guest held it")))
        assert cloud.api.delete(f"/servers/{server}/os-volume_attachments/{volume_id}",
                                headers=ALICE).status_code == 202
        cloud.settle()
    assert _volume_status(volumes, volume_id) == "in-use"
    assert volume_id in driver.volumes[server]
    assert [b.volume_id for b in block_devices.bdm_get_all_by_instance(server)] == [
        volume_id]
    assert cloud.server(server)["status"] == "ACTIVE"


def test_a_compute_restarted_mid_attach_or_detach_leaves_nothing_half_done(
        cloud_factory, conf):
    conf.set_override("persist_guests", True, group="fake_driver")
    cloud = cloud_factory(hosts=1)
    volumes = httpx.Client(base_url=f"{cloud.base_url}/volume/v3", timeout=30,
                           headers={**ALICE, "OpenStack-API-Version": "volume 3.70"})
    created = cloud.api.post("/servers", headers=ALICE, json={"server": {
        "name": "vm", "flavorRef": "1", "imageRef": _image(cloud)}})
    server = created.json()["server"]["id"]
    cloud.wait_status(server, "ACTIVE")
    compute = next(s for s in cloud.aio.services if s.binary == "novalite-compute")
    manager = compute.manager
    attaching, detaching, whole = (_volume(cloud, volumes) for _ in range(3))
    assert _attach(cloud, server, whole).status_code == 200
    assert _attach(cloud, server, detaching).status_code == 200
    cloud.settle()

    # the compute dies having exported and plugged `attaching`, before saving it
    real_update = manager.conductor.block_device_mapping_update

    def dies(*args, **kwargs):
        raise SystemExit("the compute was killed")

    manager.conductor.block_device_mapping_update = dies
    try:
        _attach(cloud, server, attaching)
        cloud.settle()
    except SystemExit:
        pass
    manager.conductor.block_device_mapping_update = real_update
    assert _volume_status(volumes, attaching) == "attaching"
    # and a detach it never got to
    volumes.post(f"/volumes/{detaching}/action", json={"os-begin_detaching": {}})
    assert _volume_status(volumes, detaching) == "detaching"

    compute.stop()
    cloud.aio.services.remove(compute)
    restarted = assembly.compute(compute.host)
    restarted.start()
    cloud.aio.services.insert(0, restarted)
    assert (_volume_status(volumes, attaching), _volume_status(volumes, detaching),
            _volume_status(volumes, whole)) == ("available", "available", "in-use")
    assert [b.volume_id for b in block_devices.bdm_get_all_by_instance(server)] == [whole]
    assert list(restarted.manager.driver.volumes[server]) == [whole]
    assert len(Exports(conf.host).known()) == 1


def test_a_rebuilt_server_keeps_its_volumes(cloud, server, volumes):
    volume_id = _volume(cloud, volumes)
    assert _attach(cloud, server, volume_id).status_code == 200
    cloud.settle()
    rebuilt = cloud.api.post(f"/servers/{server}/action", headers=ALICE, json={
        "rebuild": {"imageRef": _image(cloud)}})
    assert rebuilt.status_code == 202, rebuilt.text
    cloud.wait_status(server, "ACTIVE")
    assert volume_id in cloud.compute(_host(cloud, server)).driver.volumes[server]
    assert _volume_status(volumes, volume_id) == "in-use"


def test_an_attached_volume_extended_grows_in_the_guest(cloud, server, volumes):
    volume_id = _volume(cloud, volumes)
    assert _attach(cloud, server, volume_id).status_code == 200
    cloud.settle()
    (attachment,) = volumes.get("/attachments/detail").json()["attachments"]
    port = attachment["connection_info"]["port"]
    extend = {"os-extend": {"new_size": 2}}
    refused = volumes.post(f"/volumes/{volume_id}/action", json=extend,
                           headers={"OpenStack-API-Version": "volume 3.41"})
    assert _fault(refused, 400) == (f"Invalid volume: Volume {volume_id} status must be "
                                    "'available' to extend, currently in-use.")
    assert volumes.post(f"/volumes/{volume_id}/action", json=extend).status_code == 202
    cloud.wait(lambda: (cloud.settle(), _volume_status(volumes, volume_id))[1] == "in-use"
               and "new size 4194304" in _console(cloud, server))
    assert volumes.get(f"/volumes/{volume_id}").json()["volume"]["size"] == 2
    (attachment,) = volumes.get("/attachments/detail").json()["attachments"]
    assert attachment["connection_info"]["port"] == port  # the export is back, same port
    assert len(Exports(CONF.host).known()) == 1
    (bdm,) = block_devices.bdm_get_all_by_instance(server)
    assert bdm.volume_size == 2
    assert any(a["action"] == "extend_volume" for a in actions.actions_get(server))


def test_volume_extended_events_need_2_51_and_a_tag(cloud, server):
    event = {"name": "volume-extended", "server_uuid": server}
    old = cloud.api.post("/os-server-external-events", headers={MV: "2.50"},
                         json={"events": [{**event, "tag": "x"}]})
    assert old.status_code == 400
    untagged = cloud.api.post("/os-server-external-events", headers={MV: "2.51"},
                              json={"events": [event]})
    assert untagged.json()["events"][0]["code"] == 400


def _console(cloud, server_id: str) -> str:
    return str(cloud.api.post(f"/servers/{server_id}/action", headers=ALICE,
                              json={"os-getConsoleOutput": {}}).json()["output"])
