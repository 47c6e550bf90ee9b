"""POST /servers with block_device_mapping_v2 through real HTTP on the all-in-one (fake
driver): servers booted from an existing volume, from a volume their compute makes from
an image, a snapshot or nothing, and with volumes attached from the start; Nova's
errors for a bad mapping; the server's delete keeping or deleting each volume as asked;
a failed build handing its volumes back reserved; placement asked for no root disk; a
volume-backed server's snapshot (volume snapshots mapped by an image) booting a copy."""

from __future__ import annotations

import contextlib
import json

import httpx
import pytest

from novalite.conf import CONF
from novalite.db.api import block_devices
from novalite.image import db as images
from novalite.service import assembly
from novalite.volume.exports import Exports
from tests.functional.tempest_schemas import check

MV = "X-OpenStack-Nova-API-Version"
ALICE = {"X-Auth-Token": "alice:proj1"}
IMAGE = images.DEFAULT_IMAGE_ID


@pytest.fixture
def volumes(cloud):
    return httpx.Client(base_url=f"{cloud.base_url}/volume/v3", timeout=30,
                        headers={**ALICE, "OpenStack-API-Version": "volume 3.70"})


@pytest.fixture(autouse=True)
def quick_retries(conf):
    conf.set_override("block_device_allocate_retries_interval", 1)


def _volume(cloud, volumes: httpx.Client, **fields) -> str:
    made = volumes.post("/volumes", json={"volume": {"size": 1, **fields}})
    assert made.status_code == 202, made.text
    cloud.settle()
    return str(made.json()["volume"]["id"])


def _volume_of(volumes: httpx.Client, volume_id: str) -> dict:
    return dict(volumes.get(f"/volumes/{volume_id}").json()["volume"])


def _create(cloud, bdms: list[dict], version: str = "2.79", **server) -> httpx.Response:
    body = {"name": "bfv", "flavorRef": "1", "block_device_mapping_v2": bdms,
            "networks": "none", **server}
    return cloud.api.post("/servers", headers={**ALICE, MV: version},
                          json={"server": body})


def _booted(cloud, bdms: list[dict], **server) -> str:
    created = check(_create(cloud, bdms, **server), "v2_1", "servers",
                    "create_server_with_admin_pass")
    server_id = str(created["server"]["id"])
    cloud.wait_status(server_id, "ACTIVE")
    return server_id


def _fault(response: httpx.Response) -> str:
    assert response.status_code == 400, response.text
    return str(response.json()["badRequest"]["message"])


def _root(volume_id: str, **more) -> dict:
    return {"uuid": volume_id, "source_type": "volume", "destination_type": "volume",
            "boot_index": 0, **more}


def test_boot_from_an_existing_volume_and_keep_it_past_the_delete(cloud, volumes):
    bootable = _volume(cloud, volumes, imageRef=IMAGE)
    server_id = _booted(cloud, [_root(bootable)])
    server = check(cloud.api.get(f"/servers/{server_id}", headers={**ALICE, MV: "2.79"}),
                   "v2_79", "servers", "get_server")["server"]
    assert server["image"] == ""
    assert server["os-extended-volumes:volumes_attached"] == [
        {"id": bootable, "delete_on_termination": False}]
    volume = _volume_of(volumes, bootable)
    assert volume["status"] == "in-use"
    assert volume["attachments"][0]["device"] == "/dev/vda"
    host = cloud.server(server_id)["OS-EXT-SRV-ATTR:host"]
    assert bootable in cloud.compute(host).driver.volumes[server_id]

    listed = check(cloud.api.get(f"/servers/{server_id}/os-volume_attachments",
                                 headers={**ALICE, MV: "2.79"}),
                   "v2_79", "servers", "list_volume_attachments")
    assert listed["volumeAttachments"][0]["device"] == "/dev/vda"
    refused = cloud.api.delete(f"/servers/{server_id}/os-volume_attachments/{bootable}",
                               headers=ALICE)
    assert _fault(refused) == "Cannot detach a root device volume"

    assert cloud.api.delete(f"/servers/{server_id}", headers=ALICE).status_code == 204
    cloud.wait_gone(server_id)
    cloud.settle()
    assert _volume_of(volumes, bootable)["status"] == "available"
    # the volume boots the next server as it booted this one
    again = _booted(cloud, [_root(bootable)])
    assert cloud.server(again)["os-extended-volumes:volumes_attached"] == [
        {"id": bootable}]


def test_boot_from_volumes_the_compute_makes_and_delete_them_with_the_server(
        cloud, volumes):
    source = _volume(cloud, volumes)
    snapshot = volumes.post("/snapshots", json={"snapshot": {"volume_id": source}})
    assert snapshot.status_code == 202, snapshot.text
    snapshot_id = snapshot.json()["snapshot"]["id"]
    cloud.settle()
    server_id = _booted(cloud, [
        {"uuid": IMAGE, "source_type": "image", "destination_type": "volume",
         "boot_index": 0, "volume_size": 1, "delete_on_termination": True},
        {"source_type": "blank", "destination_type": "volume", "volume_size": 2,
         "delete_on_termination": True},
        {"uuid": snapshot_id, "source_type": "snapshot", "destination_type": "volume"}])
    mappings = block_devices.bdm_get_all_by_instance(server_id)
    assert [(b.device_name, b.boot_index) for b in mappings] == [
        ("/dev/vda", 0), ("/dev/vdb", None), ("/dev/vdc", None)]
    made = {b.device_name: _volume_of(volumes, b.volume_id or "") for b in mappings}
    assert all(v["status"] == "in-use" for v in made.values())
    assert made["/dev/vda"]["volume_image_metadata"]["image_id"] == IMAGE
    assert made["/dev/vda"]["bootable"] == "true"
    assert made["/dev/vdb"]["size"] == 2
    assert made["/dev/vdb"]["name"] == f"{server_id}-blank-vol"
    assert made["/dev/vdc"]["snapshot_id"] == snapshot_id

    assert cloud.api.delete(f"/servers/{server_id}", headers=ALICE).status_code == 204
    cloud.wait_gone(server_id)
    cloud.settle()
    assert volumes.get(f"/volumes/{made['/dev/vda']['id']}").status_code == 404
    assert volumes.get(f"/volumes/{made['/dev/vdb']['id']}").status_code == 404
    assert _volume_of(volumes, made["/dev/vdc"]["id"])["status"] == "available"


def test_an_image_booted_server_takes_volumes_from_the_start(cloud, volumes):
    data = _volume(cloud, volumes)
    server_id = _booted(cloud, [{"uuid": data, "source_type": "volume",
                                 "destination_type": "volume"}], imageRef=IMAGE)
    assert cloud.server(server_id)["image"]["id"] == IMAGE
    (mapping,) = block_devices.bdm_get_all_by_instance(server_id)
    assert mapping.device_name == "/dev/vdb"
    assert _volume_of(volumes, data)["status"] == "in-use"


def test_placement_is_asked_for_no_root_disk(cloud, volumes):
    bootable = _volume(cloud, volumes, imageRef=IMAGE)
    flavor = cloud.api.post("/flavors", json={"flavor": {
        "name": "big-root", "ram": 64, "vcpus": 1, "disk": 100000}}).json()["flavor"]
    server_id = _booted(cloud, [_root(bootable)], flavorRef=flavor["id"])
    allocations = cloud.api.get(f"{cloud.base_url}/placement/allocations/{server_id}",
                                headers={"OpenStack-API-Version": "placement 1.28"})
    (resources,) = [a["resources"] for a in allocations.json()["allocations"].values()]
    assert "DISK_GB" not in resources
    assert resources["MEMORY_MB"] == 64


@pytest.mark.parametrize(("bdms", "server", "message"), [
    ([{"uuid": IMAGE, "source_type": "image", "destination_type": "volume",
       "boot_index": 0}], {},
     "Images with destination_type 'volume' need to have a non-zero size specified"),
    ([{"source_type": "blank", "destination_type": "volume", "boot_index": 0}], {},
     "Blank volumes (source: 'blank', dest: 'volume') need to have non-zero size"),
    ([{"source_type": "volume", "destination_type": "volume", "boot_index": 0}], {},
     "Block Device Mapping is Invalid: Missing device UUID."),
    ([{"uuid": "x", "source_type": "blank", "destination_type": "volume",
       "volume_size": 1, "boot_index": 0}], {},
     "Block Device Mapping is Invalid: Invalid device UUID."),
    ([{"source_type": "blank", "destination_type": "volume", "volume_size": 1,
       "boot_index": 1}], {},
     "Block Device Mapping is Invalid: Boot sequence for the instance and "
     "image/block device mapping combination is not valid."),
    ([_root("8d3c6a9e-0000-4000-8000-000000000000")], {},
     "Block Device Mapping is Invalid: failed to get volume "
     "8d3c6a9e-0000-4000-8000-000000000000."),
    ([{"uuid": "8d3c6a9e-0000-4000-8000-000000000000", "source_type": "snapshot",
       "destination_type": "volume", "boot_index": 0}], {},
     "Block Device Mapping is Invalid: failed to get snapshot "
     "8d3c6a9e-0000-4000-8000-000000000000."),
    ([{"uuid": IMAGE, "source_type": "image", "destination_type": "local",
       "boot_index": 1}], {"imageRef": IMAGE},
     "Block Device Mapping is Invalid: Mapping image to local is not supported."),
    ([{"source_type": "blank", "destination_type": "local", "volume_size": 1}],
     {"imageRef": IMAGE}, "destination_type 'local' (an ephemeral or swap disk)"),
    ([{"source_type": "blank", "destination_type": "volume", "volume_size": 1,
       "guest_format": "ext4"}], {"imageRef": IMAGE}, "guest_format"),
    ([{"source_type": "blank", "destination_type": "volume", "volume_size": 1,
       "device_name": "/dev/vda"}], {"imageRef": IMAGE},
     "The volume cannot be assigned the same device name as the root device vda"),
])
def test_nova_refusals_of_a_bad_mapping(cloud, bdms, server, message):
    assert message in _fault(_create(cloud, bdms, **server))


def test_volumes_in_use_or_not_bootable_are_refused_and_nothing_stays_reserved(
        cloud, volumes):
    blank = _volume(cloud, volumes)
    assert _fault(_create(cloud, [_root(blank)])) == f"Block Device {blank} is not bootable."
    bootable = _volume(cloud, volumes, imageRef=IMAGE)
    _booted(cloud, [_root(bootable)])
    refused = _fault(_create(cloud, [_root(bootable)]))
    assert refused.startswith(f"Invalid volume: volume '{bootable}' status must be "
                              "'available'")
    data = _volume(cloud, volumes)
    many = _create(cloud, [{"uuid": data, "source_type": "volume",
                            "destination_type": "volume"}], imageRef=IMAGE,
                   min_count=2)
    assert _fault(many) == "Cannot attach one or more volumes to multiple instances"
    assert _volume_of(volumes, data)["status"] == "available"


def test_a_volume_backed_server_refuses_what_needs_an_image_disk(cloud, volumes):
    bootable = _volume(cloud, volumes, imageRef=IMAGE)
    server_id = _booted(cloud, [_root(bootable)])
    action = f"/servers/{server_id}/action"
    rescue = cloud.api.post(action, headers=ALICE, json={"rescue": {}})
    assert _fault(rescue).endswith("Cannot rescue a volume-backed instance")
    backup = cloud.api.post(action, headers=ALICE, json={"createBackup": {
        "name": "b", "backup_type": "daily", "rotation": 1}})
    assert _fault(backup) == "Backup is not supported for volume-backed instances."
    rebuilt = cloud.api.post(action, headers=ALICE, json={"rebuild": {"imageRef": IMAGE}})
    assert rebuilt.status_code == 202, rebuilt.text
    cloud.wait_status(server_id, "ACTIVE")
    server = cloud.server(server_id)
    assert server["image"] == ""
    assert server["os-extended-volumes:volumes_attached"] == [{"id": bootable}]
    assert _volume_of(volumes, bootable)["status"] == "in-use"


def test_a_failed_build_keeps_its_volumes_reserved_for_the_delete(cloud, volumes, conf,
                                                                  monkeypatch):
    conf.set_override("max_attempts", 1, group="scheduler")
    bootable = _volume(cloud, volumes, imageRef=IMAGE)
    for service in cloud.aio.services:
        if service.binary == "novalite-compute":
            monkeypatch.setattr(service.manager.driver, "spawn", _broken_spawn)
    created = _create(cloud, [_root(bootable, delete_on_termination=True)])
    server_id = created.json()["server"]["id"]
    cloud.wait_status(server_id, "ERROR")
    assert "the hypervisor said no" in cloud.server(server_id)["fault"]["message"]
    volume = _volume_of(volumes, bootable)
    assert volume["status"] == "reserved"
    assert Exports(CONF.host).known() == []
    assert cloud.api.delete(f"/servers/{server_id}", headers=ALICE).status_code == 204
    cloud.wait_gone(server_id)
    cloud.settle()
    assert volumes.get(f"/volumes/{bootable}").status_code == 404


def _broken_spawn(*args, **kwargs):
    raise RuntimeError("the hypervisor said no")


def test_volumes_over_the_quota_refuse_the_create_and_none_is_left(cloud, volumes):
    admin = httpx.Client(base_url=f"{cloud.base_url}/volume/v3", timeout=30)
    assert admin.put("/os-quota-sets/proj1", json={"quota_set": {
        "volumes": 1}}).status_code == 200
    refused = _create(cloud, [
        {"uuid": IMAGE, "source_type": "image", "destination_type": "volume",
         "boot_index": 0, "volume_size": 1},
        {"source_type": "blank", "destination_type": "volume", "volume_size": 1}])
    assert refused.status_code == 403, refused.text
    assert refused.json()["forbidden"]["message"] == (
        "Volume resource quota exceeded: Maximum number of volumes allowed (1) exceeded "
        "for quota 'volumes'.")
    cloud.settle()
    assert volumes.get("/volumes").json()["volumes"] == []
    assert cloud.api.get("/servers", headers=ALICE).json()["servers"] == []


def test_a_volume_backed_server_snapshot_boots_a_copy(cloud, volumes):
    bootable = _volume(cloud, volumes, imageRef=IMAGE)
    server_id = _booted(cloud, [_root(bootable)])
    made = cloud.api.post(f"/servers/{server_id}/action", headers={**ALICE, MV: "2.45"},
                          json={"createImage": {"name": "bfv-snap",
                                                "metadata": {"tier": "web"}}})
    assert made.status_code == 202, made.text
    image_id = made.json()["image_id"]
    cloud.settle()
    image_service = httpx.Client(base_url=f"{cloud.base_url}/image/v2", timeout=30,
                                 headers=ALICE)
    image = image_service.get(f"/images/{image_id}").json()
    assert (image["status"], image["size"], image["tier"], image["bdm_v2"]) == (
        "active", 0, "web", "True")
    (mapping,) = json.loads(image["block_device_mapping"])
    assert (mapping["source_type"], mapping["boot_index"], mapping["device_name"]) == (
        "snapshot", 0, "/dev/vda")
    snapshot = volumes.get(f"/snapshots/{mapping['snapshot_id']}").json()["snapshot"]
    assert (snapshot["volume_id"], snapshot["status"]) == (bootable, "available")

    # what `openstack server create --image bfv-snap` sends
    copy = _booted(cloud, [{"uuid": image_id, "source_type": "image",
                            "destination_type": "local", "boot_index": 0}],
                   imageRef=image_id)
    (root,) = block_devices.bdm_get_all_by_instance(copy)
    assert (root.boot_index, root.source_type, root.snapshot_id) == (
        0, "snapshot", mapping["snapshot_id"])
    assert root.volume_id != bootable
    assert _volume_of(volumes, root.volume_id or "")["status"] == "in-use"
    assert cloud.server(copy)["image"] == ""


def test_a_compute_restart_keeps_booted_volumes_and_ends_a_cut_build(cloud_factory, conf):
    conf.set_override("persist_guests", True, group="fake_driver")
    conf.set_override("block_device_allocate_retries_interval", 1)
    cloud = cloud_factory(hosts=1)
    volumes = httpx.Client(base_url=f"{cloud.base_url}/volume/v3", timeout=30,
                           headers={**ALICE, "OpenStack-API-Version": "volume 3.70"})
    running = _booted(cloud, [_root(_volume(cloud, volumes, imageRef=IMAGE))])
    compute = next(s for s in cloud.aio.services if s.binary == "novalite-compute")

    def killed(*args, **kwargs):
        raise SystemExit("the compute was killed mid-spawn")

    compute.manager.driver.spawn = killed
    cut = _create(cloud, [{"uuid": IMAGE, "source_type": "image",
                           "destination_type": "volume", "boot_index": 0,
                           "volume_size": 1, "delete_on_termination": True}])
    cut_id = cut.json()["server"]["id"]
    with contextlib.suppress(SystemExit):
        cloud.settle()
    (cut_root,) = block_devices.bdm_get_all_by_instance(cut_id)
    assert _volume_of(volumes, cut_root.volume_id or "")["status"] == "in-use"

    compute.stop()
    cloud.aio.services.remove(compute)
    restarted = assembly.compute(compute.host)
    restarted.start()
    cloud.aio.services.insert(0, restarted)
    cloud.wait_status(cut_id, "ERROR")
    assert cloud.wait_status(running, "ACTIVE")["os-extended-volumes:volumes_attached"]
    assert _volume_of(volumes, cut_root.volume_id or "")["status"] == "reserved"
    assert len(Exports(conf.host).known()) == 1  # the running server's export only
    assert cloud.api.delete(f"/servers/{cut_id}", headers=ALICE).status_code == 204
    cloud.wait_gone(cut_id)
    cloud.settle()
    assert volumes.get(f"/volumes/{cut_root.volume_id}").status_code == 404
