"""A multiattach volume through real HTTP on the all-in-one (fake driver): attached to
two servers from 2.60 (Nova's 400s before it, for a server shelved off any host and
for a server twice), each server showing it and the volume listing both; a detach
leaving it with the other server; a server deleted with delete_on_termination leaving
it to the other; a server booted from it while another uses it; and a compute whose
driver cannot share a disk refusing it. Answers are checked against tempest's
schemas."""

from __future__ import annotations

import httpx
import pytest

from novalite.compute import multiattach
from novalite.db.api import actions
from tests.functional.compute.test_volume_attachments_api import (
    ALICE,
    MV,
    _attach,
    _fault,
    _host,
    _image,
    _volume_status,
    volumes,  # noqa: F401 (a fixture)
)
from tests.functional.tempest_schemas import check


@pytest.fixture
def shared(cloud, volumes):  # noqa: F811 (the imported fixture)
    """A volume of a multiattach type, available."""
    admin = httpx.Client(base_url=f"{cloud.base_url}/volume/v3", timeout=30)
    assert admin.post("/types", json={"volume_type": {
        "name": "multi", "extra_specs": {"multiattach": "<is> True"}}}).status_code == 200
    made = volumes.post("/volumes", json={"volume": {"size": 1, "volume_type": "multi"}})
    assert made.status_code == 202, made.text
    cloud.settle()
    return str(made.json()["volume"]["id"])


def _server(cloud, name: str) -> str:
    created = cloud.api.post("/servers", headers=ALICE, json={"server": {
        "name": name, "flavorRef": "1", "imageRef": _image(cloud)}})
    assert created.status_code == 202, created.text
    server_id = str(created.json()["server"]["id"])
    cloud.wait_status(server_id, "ACTIVE")
    return server_id


def _attachments(volumes: httpx.Client, volume_id: str) -> list[str]:  # noqa: F811
    shown = volumes.get(f"/volumes/{volume_id}").json()["volume"]
    return sorted(a["server_id"] for a in shown["attachments"])


def test_two_servers_share_the_volume_until_the_last_lets_go(cloud, volumes, shared):  # noqa: F811
    first, second = _server(cloud, "a"), _server(cloud, "b")
    assert _fault(_attach(cloud, first, shared, "2.59"), 400) == (
        "Multiattach volumes are only supported starting with compute API version 2.60.")
    for server in (first, second):
        attached = check(_attach(cloud, server, shared, "2.60"), "v2_59", "servers",
                         "attach_volume")["volumeAttachment"]
        assert (attached["volumeId"], attached["serverId"]) == (shared, server)
        cloud.settle()
    assert _fault(_attach(cloud, first, shared, "2.60"), 400) == (
        f"Invalid volume: volume {shared} already attached")
    assert _volume_status(volumes, shared) == "in-use"
    assert _attachments(volumes, shared) == sorted([first, second])
    for server in (first, second):
        listed = check(cloud.api.get(f"/servers/{server}/os-volume_attachments",
                                     headers={MV: "2.89", **ALICE}),
                       "v2_89", "servers", "list_volume_attachments")
        assert [a["volumeId"] for a in listed["volumeAttachments"]] == [shared]
        detail = check(cloud.api.get(f"/servers/{server}", headers={MV: "2.60", **ALICE}),
                       "v2_59", "servers", "get_server")
        assert detail["server"]["os-extended-volumes:volumes_attached"] == [
            {"id": shared, "delete_on_termination": False}]
        connection = cloud.compute(_host(cloud, server)).driver.volumes[server][shared]
        assert connection["multiattach"] is True  # the guest's disk is shareable

    detached = cloud.api.delete(f"/servers/{first}/os-volume_attachments/{shared}",
                                headers=ALICE)
    check(detached, "v2_1", "servers", "detach_volume")
    cloud.settle()
    assert _volume_status(volumes, shared) == "in-use"
    assert _attachments(volumes, shared) == [second]
    assert first not in cloud.compute(_host(cloud, first)).driver.volumes
    cloud.api.delete(f"/servers/{second}/os-volume_attachments/{shared}", headers=ALICE)
    cloud.settle()
    assert _volume_status(volumes, shared) == "available"
    assert _attachments(volumes, shared) == []


def test_a_deleted_server_leaves_the_volume_to_the_others(cloud, volumes, shared):  # noqa: F811
    kept, deleted = _server(cloud, "kept"), _server(cloud, "deleted")
    assert _attach(cloud, kept, shared, "2.60").status_code == 200
    cloud.settle()  # attaching: no other reservation meanwhile (Cinder's)
    assert _attach(cloud, deleted, shared, "2.79", delete_on_termination=True
                   ).status_code == 200
    cloud.settle()
    assert cloud.api.delete(f"/servers/{deleted}", headers=ALICE).status_code == 204
    cloud.wait_gone(deleted)
    cloud.settle()
    assert _volume_status(volumes, shared) == "in-use"  # Cinder refused its delete
    assert _attachments(volumes, shared) == [kept]


def test_a_server_boots_from_the_volume_another_uses(cloud, volumes, shared):  # noqa: F811
    volumes.post(f"/volumes/{shared}/action", json={"os-set_bootable": {"bootable": True}})
    other = _server(cloud, "other")
    assert _attach(cloud, other, shared, "2.60").status_code == 200
    cloud.settle()
    bdm = [{"source_type": "volume", "destination_type": "volume", "uuid": shared,
            "boot_index": 0}]
    body = {"name": "bfv", "flavorRef": "1", "block_device_mapping_v2": bdm,
            "networks": "none"}
    old = cloud.api.post("/servers", headers={**ALICE, MV: "2.59"}, json={"server": body})
    assert _fault(old, 400) == (
        "Multiattach volumes are only supported starting with compute API version 2.60.")
    created = check(cloud.api.post("/servers", headers={**ALICE, MV: "2.60"},
                                   json={"server": body}),
                    "v2_1", "servers", "create_server_with_admin_pass")
    booted = created["server"]["id"]
    cloud.wait_status(booted, "ACTIVE")
    cloud.settle()
    assert _attachments(volumes, shared) == sorted([other, booted])


def test_shelved_servers_and_drivers_without_it_refuse_the_volume(cloud, volumes, shared,  # noqa: F811
                                                                  monkeypatch):
    server = _server(cloud, "s")
    driver = cloud.compute(_host(cloud, server)).driver
    monkeypatch.setattr(driver, "capabilities", {
        k: v for k, v in driver.capabilities.items() if k != multiattach.CAPABILITY})
    assert _attach(cloud, server, shared, "2.60").status_code == 200  # the compute refuses
    cloud.settle()
    assert _volume_status(volumes, shared) == "available"
    assert cloud.server(server)["os-extended-volumes:volumes_attached"] == []
    attach = next(a for a in actions.actions_get(server) if a["action"] == "attach_volume")
    assert attach["events"][0]["result"] == "Error"
    assert (f"Volume {shared} has 'multiattach' set, which is not supported for this "
            "instance.") in attach["events"][0]["traceback"]

    monkeypatch.undo()
    assert cloud.api.post(f"/servers/{server}/action", headers=ALICE,
                          json={"shelve": None}).status_code == 202
    cloud.wait_status(server, "SHELVED_OFFLOADED")
    assert _fault(_attach(cloud, server, shared, "2.60"), 400) == (
        "Attaching multiattach volumes is not supported for shelved-offloaded instances.")
