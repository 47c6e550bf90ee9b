"""/os-assisted-volume-snapshots through real HTTP on the all-in-one (fake driver), as
the volume service calls it: the guest's chain of files moved and merged on its compute,
the outcome reported on the snapshot with Cinder's os-update_snapshot_status (only a
snapshot being made or removed takes it), an unknown snapshot harmless (Tempest's
random id), and Nova's refusals. Tempest has no schema of these answers; the create's
is checked against Nova's own."""

from __future__ import annotations

import json
import uuid

import httpx
import pytest
from jsonschema import Draft4Validator
from sqlalchemy import update

from novalite.db import session
from novalite.db.api import instances
from novalite.db.models import volume as models
from novalite.image import db as images

MV = "X-OpenStack-Nova-API-Version"
ALICE = {"X-Auth-Token": "alice:proj1"}
CINDER = {"X-Auth-Token": "cinder:service", "X-Roles": "service"}
# Nova's create_response (nova/api/openstack/compute/schemas/assisted_volume_snapshots.py)
CREATED = {"type": "object", "required": ["snapshot"], "additionalProperties": False,
           "properties": {"snapshot": {
               "type": "object", "required": ["id", "volumeId"],
               "additionalProperties": False,
               "properties": {"id": {"type": ["null", "string"]},
                              "volumeId": {"type": "string"}}}}}


@pytest.fixture
def volumes(cloud):
    return httpx.Client(base_url=f"{cloud.base_url}/volume/v3", timeout=30,
                        headers={**ALICE, "OpenStack-API-Version": "volume 3.70"})


@pytest.fixture
def attached(cloud, volumes):
    """(server id, volume id): a volume attached to an ACTIVE server."""
    server = cloud.api.post("/servers", headers=ALICE, json={"server": {
        "name": "vm", "flavorRef": "1", "imageRef": images.DEFAULT_IMAGE_ID}}).json()[
        "server"]["id"]
    cloud.wait_status(server, "ACTIVE")
    volume_id = volumes.post("/volumes", json={"volume": {"size": 1}}).json()["volume"]["id"]
    cloud.settle()
    response = cloud.api.post(f"/servers/{server}/os-volume_attachments", headers=ALICE,
                              json={"volumeAttachment": {"volumeId": volume_id}})
    assert response.status_code == 200, response.text
    cloud.settle()
    return server, volume_id


def _snapshot(cloud, volumes, volume_id: str) -> str:
    made = volumes.post("/snapshots", json={"snapshot": {"volume_id": volume_id,
                                                         "force": True}})
    assert made.status_code == 202, made.text
    cloud.settle()
    return str(made.json()["snapshot"]["id"])


def _hold(snapshot_id: str, status: str) -> None:
    """The snapshot as a remotefs backend holds it while it waits on Nova."""
    with session.writer() as s:
        s.execute(update(models.Snapshot).where(models.Snapshot.id == snapshot_id)
                  .values(status=status))


def _reported(volumes, snapshot_id: str) -> tuple[str, str]:
    found = volumes.get(f"/snapshots/{snapshot_id}").json()["snapshot"]
    return found["status"], found["os-extended-snapshot-attributes:progress"]


def _create(cloud, volume_id: str, snapshot_id: str, new_file: str, **more):
    return cloud.api.post("/os-assisted-volume-snapshots", headers=CINDER, json={
        "snapshot": {"volume_id": volume_id, "create_info": {
            "snapshot_id": snapshot_id, "type": "qcow2", "new_file": new_file, **more}}})


def _delete(cloud, snapshot_id: str, delete_info: object, version: str = "2.1",
            **params: str):
    info = delete_info if isinstance(delete_info, str) else json.dumps(delete_info)
    return cloud.api.delete(f"/os-assisted-volume-snapshots/{snapshot_id}",
                            params={"delete_info": info, **params},
                            headers={**CINDER, MV: version})


def _chain(cloud, server: str, volume_id: str) -> list[str]:
    host = cloud.server(server)["OS-EXT-SRV-ATTR:host"]
    return list(cloud.compute(host).driver.volume_chains[server][volume_id])


def _fault(response: httpx.Response, code: int) -> str:
    assert response.status_code == code, response.text
    (body,) = response.json().values()
    return str(body["message"])


def test_create_and_delete_move_the_chain_and_report_the_snapshot(cloud, volumes,
                                                                   attached):
    server, volume_id = attached
    first, second = (_snapshot(cloud, volumes, volume_id) for _ in range(2))
    base = f"volume-{volume_id}"
    for snapshot_id, new_file in ((first, "a.qcow2"), (second, "b.qcow2")):
        _hold(snapshot_id, "creating")
        created = _create(cloud, volume_id, snapshot_id, new_file, id=snapshot_id)
        assert created.status_code == 200, created.text
        Draft4Validator(CREATED).validate(created.json())
        assert created.json() == {"snapshot": {"id": snapshot_id, "volumeId": volume_id}}
        cloud.settle()
        assert _reported(volumes, snapshot_id) == ("creating", "90%")
    assert _chain(cloud, server, volume_id) == [base, "a.qcow2", "b.qcow2"]

    _hold(first, "deleting")
    deleted = _delete(cloud, first, {"volume_id": volume_id, "type": "qcow2",
                                     "file_to_merge": "a.qcow2", "merge_target_file": base})
    assert (deleted.status_code, deleted.content) == (204, b"")
    cloud.settle()
    assert _chain(cloud, server, volume_id) == [base, "b.qcow2"]
    assert _reported(volumes, first) == ("deleting", "90%")


def test_an_unknown_or_finished_snapshot_is_not_reported_and_harms_nothing(
        cloud, volumes, attached):
    server, volume_id = attached
    available = _snapshot(cloud, volumes, volume_id)
    assert _reported(volumes, available) == ("available", "100%")
    for snapshot_id in (str(uuid.uuid4()), available):  # Tempest's, then a finished one
        created = _create(cloud, volume_id, snapshot_id, "new_file")
        assert created.json() == {"snapshot": {"id": None, "volumeId": volume_id}}
        cloud.settle()
        assert _delete(cloud, snapshot_id, {"volume_id": volume_id}).status_code == 204
        cloud.settle()
    assert _chain(cloud, server, volume_id) == ["new_file"]  # all pulled into the top
    assert _reported(volumes, available) == ("available", "100%")
    assert cloud.server(server)["status"] == "ACTIVE"


def test_a_driver_failure_is_reported_as_the_snapshot_error(cloud, volumes, attached):
    server, volume_id = attached
    snapshot_id = _snapshot(cloud, volumes, volume_id)
    _hold(snapshot_id, "deleting")
    assert _delete(cloud, snapshot_id, {"volume_id": volume_id, "file_to_merge": "nope",
                                        "merge_target_file": None}).status_code == 204
    cloud.settle()
    assert _reported(volumes, snapshot_id) == ("error_deleting", "90%")

    _hold(snapshot_id, "creating")
    host = cloud.server(server)["OS-EXT-SRV-ATTR:host"]
    driver = cloud.compute(host).driver

    def fail(*args, **kwargs):
        raise RuntimeError("disk on fire")

    driver.volume_snapshot_create = fail
    assert _create(cloud, volume_id, snapshot_id, "a.qcow2").status_code == 200
    cloud.settle()
    assert _reported(volumes, snapshot_id) == ("error", "90%")


@pytest.mark.parametrize(("create_info", "field"), [
    ({"type": "qcow2", "new_file": "f"}, "'snapshot_id' is a required property"),
    ({"snapshot_id": "s", "type": "raw", "new_file": "f"}, "'raw' is not one of"),
    ({"snapshot_id": "s", "type": "qcow2"}, "'new_file' is a required property"),
    ({"snapshot_id": "s", "type": "qcow2", "new_file": "f", "x": 1},
     "Additional properties are not allowed"),
])
def test_a_bad_create_body_is_400(cloud, create_info, field):
    response = cloud.api.post("/os-assisted-volume-snapshots", headers=CINDER, json={
        "snapshot": {"volume_id": "v", "create_info": create_info}})
    assert field in _fault(response, 400)


@pytest.mark.parametrize(("delete_info", "message"), [
    (None, "'delete_info'"),
    ("{not json", "Expecting property name enclosed in double quotes"),
    ({"type": "qcow2"}, "'volume_id'"),
    ([1], "delete_info must be a JSON object"),
])
def test_a_bad_delete_info_is_400(cloud, delete_info, message):
    if delete_info is None:
        response = cloud.api.delete("/os-assisted-volume-snapshots/s", headers=CINDER)
    else:
        response = _delete(cloud, "s", delete_info)
    assert message in _fault(response, 400)


def test_unknown_query_parameters_are_400_from_2_75(cloud, attached):
    _, volume_id = attached
    info = {"volume_id": volume_id}
    assert _delete(cloud, "s", info, "2.74", colour="red").status_code == 204
    assert "'colour' was unexpected" in _fault(_delete(cloud, "s", info, "2.75",
                                                       colour="red"), 400)


def test_only_a_service_or_an_admin_may_ask(cloud, attached):
    _, volume_id = attached
    for caller in (ALICE, {**CINDER, "X-Roles": "member,reader"}):
        response = cloud.api.post("/os-assisted-volume-snapshots", headers=caller, json={
            "snapshot": {"volume_id": volume_id, "create_info": {
                "snapshot_id": "s", "type": "qcow2", "new_file": "f"}}})
        assert "os-assisted-volume-snapshots:create" in _fault(response, 403)
        refused = cloud.api.delete("/os-assisted-volume-snapshots/s", headers=caller,
                                   params={"delete_info": json.dumps({"volume_id": volume_id})})
        assert "os-assisted-volume-snapshots:delete" in _fault(refused, 403)
    assert cloud.api.post("/os-assisted-volume-snapshots", json={"snapshot": {
        "volume_id": volume_id, "create_info": {
            "snapshot_id": "s", "type": "qcow2", "new_file": "f"}}}).status_code == 200


def test_a_volume_attached_to_no_server_is_nova_s_400(cloud, volumes):
    volume_id = volumes.post("/volumes", json={"volume": {"size": 1}}).json()["volume"]["id"]
    cloud.settle()
    expected = f"No volume Block Device Mapping with id {volume_id}."
    assert _fault(_create(cloud, volume_id, "s", "f"), 400) == expected
    assert _fault(_delete(cloud, "s", {"volume_id": volume_id}), 400) == expected


def test_a_server_with_a_task_under_way_is_refused_as_nova_refuses_it(cloud, attached):
    server, volume_id = attached
    instances.instance_update(server, {"task_state": "rebooting"})
    assert _fault(_create(cloud, volume_id, "s", "f"), 400) == (
        f"Instance {server} in task_state rebooting. Cannot volume_snapshot_create while "
        "the instance is in this state.")
    merge = {"volume_id": volume_id, "file_to_merge": "a", "merge_target_file": "b"}
    instances.instance_update(server, {"task_state": None, "vm_state": "stopped"})
    assert _fault(_delete(cloud, "s", merge), 400) == (
        f"Instance {server} in vm_state stopped. Cannot volume_snapshot_delete while the "
        "instance is in this state.")
