"""Servers with volumes moved through real HTTP on the all-in-one (fake driver, two
hosts): an attached volume and a volume-backed server's root volume go with the guest as
Nova's do on Cinder's attachments API. After each move the volume is `in-use` by the
server, attached on its new host only (the attachment's host and the mapping's
connection are the new host's, the guest there has it), and the attachments the old host
held are gone; a revert brings all of it back to the source, as does a source restarted
after it handed the volume over. An offloaded server's
volume is reserved for it on no host; a volume-backed server shelves without an image.
An evacuation takes the volume from the failed host. A live migration attaches it to
the destination too, then lets the source's attachment go (or, rolled back, the
destination's), the destination's driver told what the source's says of the guest."""

from __future__ import annotations

import uuid

import httpx
import pytest
from sqlalchemy import update

from novalite.clients import placement as placement_client
from novalite.context import get_admin_context
from novalite.db import models, session
from novalite.db.api import block_devices, compute_nodes, instances, migrations
from novalite.image import db as images
from novalite.objects.migration import Migration

MV = "X-OpenStack-Nova-API-Version"
ALICE = {"X-Auth-Token": "alice:proj1"}
VOLUME_API = {"OpenStack-API-Version": "volume 3.70"}


@pytest.fixture
def volumes(cloud):
    return httpx.Client(base_url=f"{cloud.base_url}/volume/v3", timeout=30,
                        headers={**ALICE, **VOLUME_API})


@pytest.fixture
def admin_volumes(cloud):
    """The volume service as an admin sees it: which host each attachment is on."""
    return httpx.Client(base_url=f"{cloud.base_url}/volume/v3", timeout=30,
                        headers=VOLUME_API)


def _volume(cloud, volumes: httpx.Client, **fields) -> str:
    made = volumes.post("/volumes", json={"volume": {"size": 1, **fields}})
    assert made.status_code == 202, made.text
    cloud.settle()
    return str(made.json()["volume"]["id"])


def _server_with_volume(cloud, volumes: httpx.Client, kind: str) -> tuple[str, str]:
    """A server and its volume: one attached to an image-booted server, or the root
    volume of a volume-backed one."""
    if kind == "volume-backed":
        volume_id = _volume(cloud, volumes, imageRef=images.DEFAULT_IMAGE_ID)
        body = {"name": "bfv", "flavorRef": "1", "networks": "none",
                "block_device_mapping_v2": [{"uuid": volume_id, "source_type": "volume",
                                             "destination_type": "volume",
                                             "boot_index": 0}]}
    else:
        volume_id = _volume(cloud, volumes)
        body = {"name": "vm", "flavorRef": "1", "imageRef": images.DEFAULT_IMAGE_ID,
                "networks": "none"}
    created = cloud.api.post("/servers", headers={**ALICE, MV: "2.79"},
                             json={"server": body})
    assert created.status_code == 202, created.text
    server_id = created.json()["server"]["id"]
    cloud.wait_status(server_id, "ACTIVE")
    if kind == "attached":
        attached = cloud.api.post(f"/servers/{server_id}/os-volume_attachments",
                                  headers=ALICE,
                                  json={"volumeAttachment": {"volumeId": volume_id}})
        assert attached.status_code == 200, attached.text
        cloud.settle()
    return server_id, volume_id


def _act(cloud, server_id: str, body: dict) -> None:
    response = cloud.api.post(f"/servers/{server_id}/action", json=body)
    assert response.status_code in (202, 204), response.text


def _settled(cloud, server_id: str, status: str) -> dict:
    cloud.settle()
    return cloud.wait(lambda: (s := cloud.server(server_id))["status"] == status
                      and s["OS-EXT-STS:task_state"] is None and s)


def _attached_on(cloud, admin_volumes: httpx.Client, server_id: str, volume_id: str,
                 host: str) -> str:
    """That the volume is the server's on `host` alone; its attachment's id."""
    volume = admin_volumes.get(f"/volumes/{volume_id}").json()["volume"]
    assert volume["status"] == "in-use"
    (attachment,) = volume["attachments"]
    assert (attachment["server_id"], attachment["host_name"]) == (server_id, host)
    (mapping,) = [b for b in block_devices.bdm_get_all_by_instance(server_id)
                  if b.volume_id == volume_id]
    assert mapping.attachment_id == attachment["attachment_id"]
    guests = {name: cloud.compute(name).driver.volumes.get(server_id, {})
              for name in (s.host for s in cloud.aio.services
                           if s.binary == "novalite-compute")}
    assert guests.pop(host)[volume_id] == mapping.connection_info
    assert all(volume_id not in other for other in guests.values())
    return str(attachment["attachment_id"])


def _gone(admin_volumes: httpx.Client, attachment_id: str) -> None:
    assert admin_volumes.get(f"/attachments/{attachment_id}").status_code == 404


@pytest.mark.parametrize("kind", ["attached", "volume-backed"])
def test_resize_then_confirm_carries_the_volume(cloud, volumes, admin_volumes, kind):
    server_id, volume_id = _server_with_volume(cloud, volumes, kind)
    source = cloud.server(server_id)["OS-EXT-SRV-ATTR:host"]
    before = _attached_on(cloud, admin_volumes, server_id, volume_id, source)

    _act(cloud, server_id, {"resize": {"flavorRef": "2"}})
    dest = _settled(cloud, server_id, "VERIFY_RESIZE")["OS-EXT-SRV-ATTR:host"]
    moved = _attached_on(cloud, admin_volumes, server_id, volume_id, dest)
    _gone(admin_volumes, before)

    _act(cloud, server_id, {"confirmResize": None})
    server = _settled(cloud, server_id, "ACTIVE")
    assert server["OS-EXT-SRV-ATTR:host"] == dest
    assert _attached_on(cloud, admin_volumes, server_id, volume_id, dest) == moved
    assert server["os-extended-volumes:volumes_attached"] == [{"id": volume_id}]


@pytest.mark.parametrize("kind", ["attached", "volume-backed"])
def test_migrate_then_revert_brings_the_volume_back(cloud, volumes, admin_volumes, kind):
    server_id, volume_id = _server_with_volume(cloud, volumes, kind)
    source = cloud.server(server_id)["OS-EXT-SRV-ATTR:host"]
    before = _attached_on(cloud, admin_volumes, server_id, volume_id, source)

    _act(cloud, server_id, {"migrate": None})
    dest = _settled(cloud, server_id, "VERIFY_RESIZE")["OS-EXT-SRV-ATTR:host"]
    assert dest != source
    moved = _attached_on(cloud, admin_volumes, server_id, volume_id, dest)

    _act(cloud, server_id, {"revertResize": None})
    assert _settled(cloud, server_id, "ACTIVE")["OS-EXT-SRV-ATTR:host"] == source
    back = _attached_on(cloud, admin_volumes, server_id, volume_id, source)
    for old in (before, moved):
        _gone(admin_volumes, old)
    assert back not in (before, moved)


@pytest.mark.parametrize("end", ["confirmResize", "revertResize"])
def test_a_volume_taken_and_one_given_while_the_resize_waits_go_with_its_end(
        cloud, volumes, admin_volumes, end):
    """As Nova, a server in VERIFY_RESIZE takes and gives volumes on the host it runs
    on now; a revert takes what it then has back to the source (the connections are
    made again there from its mappings), a confirm leaves them where they are."""
    server_id, given = _server_with_volume(cloud, volumes, "attached")
    source = cloud.server(server_id)["OS-EXT-SRV-ATTR:host"]
    _act(cloud, server_id, {"migrate": None})
    dest = _settled(cloud, server_id, "VERIFY_RESIZE")["OS-EXT-SRV-ATTR:host"]
    taken = _volume(cloud, volumes)
    attachments = f"/servers/{server_id}/os-volume_attachments"
    assert cloud.api.post(attachments, headers={**ALICE, MV: "2.79"}, json={
        "volumeAttachment": {"volumeId": taken}}).status_code == 200
    assert cloud.api.delete(f"{attachments}/{given}", headers=ALICE).status_code == 202
    cloud.settle()
    _attached_on(cloud, admin_volumes, server_id, taken, dest)
    assert volumes.get(f"/volumes/{given}").json()["volume"]["status"] == "available"

    _act(cloud, server_id, {end: None})
    host = _settled(cloud, server_id, "ACTIVE")["OS-EXT-SRV-ATTR:host"]
    assert host == (dest if end == "confirmResize" else source)
    _attached_on(cloud, admin_volumes, server_id, taken, host)
    assert [v["id"] for v in cloud.server(server_id)[
        "os-extended-volumes:volumes_attached"]] == [taken]


@pytest.mark.parametrize("kind", ["attached", "volume-backed"])
def test_shelve_offload_then_unshelve_elsewhere(cloud, volumes, admin_volumes, kind):
    server_id, volume_id = _server_with_volume(cloud, volumes, kind)
    source = cloud.server(server_id)["OS-EXT-SRV-ATTR:host"]
    before = _attached_on(cloud, admin_volumes, server_id, volume_id, source)
    images_before = cloud.api.get("/images").json()["images"]

    _act(cloud, server_id, {"shelve": None})  # offloaded at once: shelved_offload_time 0
    shelved = _settled(cloud, server_id, "SHELVED_OFFLOADED")
    assert shelved["OS-EXT-SRV-ATTR:host"] is None
    volume = admin_volumes.get(f"/volumes/{volume_id}").json()["volume"]
    assert volume["status"] == "reserved"  # the server's, on no host
    (mapping,) = block_devices.bdm_get_all_by_instance(server_id)
    assert mapping.connection_info is None
    assert admin_volumes.get(f"/attachments/{mapping.attachment_id}").json()[
        "attachment"]["instance"] == server_id
    _gone(admin_volumes, before)
    assert not any(server_id in cloud.compute(s.host).driver.volumes
                   for s in cloud.aio.services if s.binary == "novalite-compute")
    if kind == "volume-backed":  # no shelve image: its disk is the volume
        assert cloud.api.get("/images").json()["images"] == images_before

    other = "compute2" if source == "compute1" else "compute1"
    unshelved = cloud.api.post(f"/servers/{server_id}/action", headers={MV: "2.91"},
                               json={"unshelve": {"host": other}})
    assert unshelved.status_code == 202, unshelved.text
    assert _settled(cloud, server_id, "ACTIVE")["OS-EXT-SRV-ATTR:host"] == other
    _attached_on(cloud, admin_volumes, server_id, volume_id, other)
    assert cloud.api.get("/images").json()["images"] == images_before


def _force_down(host: str, down: bool = True) -> None:
    with session.writer() as s:
        s.execute(update(models.Service).where(models.Service.host == host)
                  .values(forced_down=down))


@pytest.mark.parametrize("kind", ["attached", "volume-backed"])
def test_evacuate_takes_the_volume_from_the_failed_host(cloud, volumes, admin_volumes,
                                                         kind):
    server_id, volume_id = _server_with_volume(cloud, volumes, kind)
    source = cloud.server(server_id)["OS-EXT-SRV-ATTR:host"]
    before = _attached_on(cloud, admin_volumes, server_id, volume_id, source)
    _force_down(source)
    answered = cloud.api.post(f"/servers/{server_id}/action", json={"evacuate": {}},
                              headers={MV: "2.14"})
    assert answered.status_code == 200, answered.text
    target = _settled(cloud, server_id, "ACTIVE")["OS-EXT-SRV-ATTR:host"]
    assert target != source
    _gone(admin_volumes, before)

    _force_down(source, False)
    cloud.compute(source)._destroy_evacuated_instances(get_admin_context())
    _attached_on(cloud, admin_volumes, server_id, volume_id, target)


def _live(cloud, server_id: str) -> httpx.Response:
    return cloud.api.post(f"/servers/{server_id}/action", headers={MV: "2.25"},
                          json={"os-migrateLive": {"host": None,
                                                   "block_migration": "auto"}})


@pytest.mark.parametrize("kind", ["attached", "volume-backed"])
def test_live_migrate_attaches_there_then_lets_the_source_go(cloud, volumes,
                                                             admin_volumes, kind):
    server_id, volume_id = _server_with_volume(cloud, volumes, kind)
    source = cloud.server(server_id)["OS-EXT-SRV-ATTR:host"]
    before = _attached_on(cloud, admin_volumes, server_id, volume_id, source)
    assert _live(cloud, server_id).status_code == 202
    target = _settled(cloud, server_id, "ACTIVE")["OS-EXT-SRV-ATTR:host"]
    assert target != source
    _attached_on(cloud, admin_volumes, server_id, volume_id, target)
    _gone(admin_volumes, before)


def test_a_failed_live_migration_lets_the_destinations_attachment_go(
        cloud, volumes, admin_volumes):
    server_id, volume_id = _server_with_volume(cloud, volumes, "attached")
    source = cloud.server(server_id)["OS-EXT-SRV-ATTR:host"]
    before = _attached_on(cloud, admin_volumes, server_id, volume_id, source)

    def fails(*args, **kwargs):
        raise RuntimeError("the copy broke")

    cloud.compute(source).driver.live_migration = fails
    assert _live(cloud, server_id).status_code == 202
    assert _settled(cloud, server_id, "ACTIVE")["OS-EXT-SRV-ATTR:host"] == source
    assert _attached_on(cloud, admin_volumes, server_id, volume_id, source) == before
    listed = admin_volumes.get(f"/attachments?instance_id={server_id}&all_tenants=1")
    assert [a["id"] for a in listed.json()["attachments"]] == [before]


def test_a_qemu_hosts_server_with_volumes_live_migrates_its_guest_as_the_source_says(
        cloud, volumes, admin_volumes):
    """Nothing refuses a server with volumes on a QEMU host; the destination's driver is
    told what the source's says of its guest (the machine to start: its volumes'
    ports), with the volumes connected to the destination."""
    server_id, volume_id = _server_with_volume(cloud, volumes, "attached")
    source = cloud.server(server_id)["OS-EXT-SRV-ATTR:host"]
    for node in compute_nodes.compute_node_get_by_host(source):
        node.hypervisor_type = "QEMU"
        compute_nodes.compute_node_save(node)
    before = _attached_on(cloud, admin_volumes, server_id, volume_id, source)
    layout = {"layout": {"volume_ports": {volume_id: 0}}}
    cloud.compute(source).driver.check_can_live_migrate_source = lambda ctx, inst: layout
    told: list[tuple[list[str], dict]] = []
    for service in cloud.aio.services:
        if service.binary == "novalite-compute" and service.host != source:
            driver = service.manager.driver
            driver.pre_live_migration = _recording(driver.pre_live_migration, told)
    assert _live(cloud, server_id).status_code == 202
    target = _settled(cloud, server_id, "ACTIVE")["OS-EXT-SRV-ATTR:host"]
    assert target != source
    assert told == [([volume_id], layout)]
    _attached_on(cloud, admin_volumes, server_id, volume_id, target)
    _gone(admin_volumes, before)


def _recording(pre_live_migration, told: list):
    def recorded(ctx, instance, block_device_info=None, migrate_data=None):
        told.append(([device.serial for device in block_device_info or []], migrate_data))
        return pre_live_migration(ctx, instance, block_device_info, migrate_data)
    return recorded


@pytest.mark.parametrize("kind", ["attached", "volume-backed"])
def test_a_source_restarted_after_the_handover_takes_guest_and_volume_back(
        cloud, volumes, admin_volumes, kind):
    """As if the source died in resize_instance once the guest was set aside and its
    volume handed over (reserved for the server, on no host): its start puts both back."""
    server_id, volume_id = _server_with_volume(cloud, volumes, kind)
    source = cloud.server(server_id)["OS-EXT-SRV-ATTR:host"]
    before = _attached_on(cloud, admin_volumes, server_id, volume_id, source)
    manager, ctx = cloud.compute(source), get_admin_context()
    instance = instances.instance_get(server_id)
    migration = migrations.migration_create(Migration(
        uuid=str(uuid.uuid4()), instance_uuid=server_id, status="migrating",
        migration_type="migration", source_compute=source, source_node=source))
    assert placement_client.report_client().move_allocations(ctx, server_id,
                                                             migration.uuid)
    instances.instance_update(server_id, {"task_state": "resize_migrating"})
    manager.driver.migrate_disk_and_power_off(ctx, instance, "elsewhere", instance.flavor)
    manager._terminate_volume_connections(ctx, instance)
    assert admin_volumes.get(f"/volumes/{volume_id}").json()["volume"][
        "status"] == "reserved"

    manager._init_volumes(ctx, instances.instance_get(server_id))  # left for the move
    manager._init_instance(ctx, instances.instance_get(server_id))
    assert _settled(cloud, server_id, "ACTIVE")["OS-EXT-SRV-ATTR:host"] == source
    _gone(admin_volumes, before)
    _attached_on(cloud, admin_volumes, server_id, volume_id, source)


def test_a_shelved_offloaded_server_takes_and_gives_volumes_from_2_20(cloud, volumes,
                                                                     admin_volumes):
    server_id, _ = _server_with_volume(cloud, volumes, "volume-backed")
    _act(cloud, server_id, {"shelve": None})
    _settled(cloud, server_id, "SHELVED_OFFLOADED")
    data, dropped = _volume(cloud, volumes), _volume(cloud, volumes)
    attachments = f"/servers/{server_id}/os-volume_attachments"

    def attach(volume_id: str, version: str, **more) -> httpx.Response:
        return cloud.api.post(attachments, headers={**ALICE, MV: version},
                              json={"volumeAttachment": {"volumeId": volume_id, **more}})

    refused = attach(data, "2.19")
    assert refused.status_code == 409, refused.text
    assert "shelved_offloaded" in refused.json()["conflictingRequest"]["message"]
    assert attach(data, "2.20").status_code == 200
    assert attach(dropped, "2.79", delete_on_termination=True).status_code == 200
    for volume_id in (data, dropped):  # reserved for the server, connected nowhere
        assert volumes.get(f"/volumes/{volume_id}").json()["volume"]["status"] == "reserved"
    detached = cloud.api.delete(f"{attachments}/{dropped}", headers={**ALICE, MV: "2.20"})
    assert detached.status_code == 202, detached.text
    cloud.settle()  # the volume service deletes it after the answer
    assert volumes.get(f"/volumes/{dropped}").status_code == 404  # delete_on_termination
    assert any(a["action"] == "detach_volume" for a in cloud.api.get(
        f"/servers/{server_id}/os-instance-actions", headers=ALICE).json()["instanceActions"])

    _act(cloud, server_id, {"unshelve": None})
    host = _settled(cloud, server_id, "ACTIVE")["OS-EXT-SRV-ATTR:host"]
    _attached_on(cloud, admin_volumes, server_id, data, host)
