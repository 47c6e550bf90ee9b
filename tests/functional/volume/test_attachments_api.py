"""Cinder's attachments API (3.27+) over real HTTP on the all-in-one: a volume reserved,
exported over NBD to a connector (a real qemu-nbd serving the raw disk the guest sees),
completed, and detached again; what each status refuses, with Cinder's texts."""

from __future__ import annotations

import os
import socket
import subprocess

import httpx
import pytest

from novalite.identity import bootstrap
from novalite.volume import backend

SERVER = "8a1b9e1c-2f4d-4b6a-9c3e-5d7f0a1b2c3d"
CONNECTOR = {"host": "compute1", "ip": "127.0.0.1", "platform": "x86_64",
             "os_type": "linux", "multipath": False, "mountpoint": "/dev/vdb"}


@pytest.fixture
def user(cloud):
    demo = bootstrap.project_ids("demo")[0]
    return httpx.Client(base_url=f"{cloud.base_url}/volume/v3/{demo}", timeout=60,
                        headers={"X-Auth-Token": f"demo:{demo}",
                                 "OpenStack-API-Version": "volume 3.70"})


@pytest.fixture
def admin(cloud):
    return httpx.Client(base_url=f"{cloud.base_url}/volume/v3", timeout=60,
                        headers={"OpenStack-API-Version": "volume 3.70"})


def _fault(response: httpx.Response, code: int) -> str:
    assert response.status_code == code, response.text
    (body,) = response.json().values()
    return str(body["message"])


def _volume(cloud, client: httpx.Client) -> dict:
    made = client.post("/volumes", json={"volume": {"size": 1, "name": "data"}})
    assert made.status_code == 202, made.text
    cloud.settle()
    return client.get(f"/volumes/{made.json()['volume']['id']}").json()["volume"]


def _status(client: httpx.Client, volume_id: str) -> str:
    return str(client.get(f"/volumes/{volume_id}").json()["volume"]["status"])


def _nbd_url(connection: dict) -> str:
    return f"nbd://{connection['host']}:{connection['port']}/{connection['export']}"


def _listening(connection: dict) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex((connection["host"], int(connection["port"]))) == 0


def _qemu_io(url: str, command: str, *flags: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["qemu-io", *flags, "-f", "raw", "-c", command, url],
                          capture_output=True, text=True, timeout=30, check=False)


def test_reserve_connect_complete_and_delete(cloud, user, admin):
    volume = _volume(cloud, user)
    reserved = user.post("/attachments", json={"attachment": {
        "volume_uuid": volume["id"], "instance_uuid": SERVER}})
    assert reserved.status_code == 200, reserved.text
    attachment = reserved.json()["attachment"]
    assert (attachment["status"], attachment["instance"], attachment["volume_id"],
            attachment["connection_info"], attachment["attach_mode"]) == (
        "reserved", SERVER, volume["id"], {}, "null")
    assert _status(user, volume["id"]) == "reserved"
    refused = user.post("/attachments", json={"attachment": {"volume_uuid": volume["id"]}})
    assert _fault(refused, 400) == (
        f"Invalid volume: Volume {volume['id']} status must be available or downloading to "
        "reserve, but the current status is reserved.")

    updated = user.put(f"/attachments/{attachment['id']}",
                       json={"attachment": {"connector": CONNECTOR}})
    assert updated.status_code == 200, updated.text
    found = updated.json()["attachment"]
    connection = found["connection_info"]
    assert (found["status"], found["attach_mode"], connection["driver_volume_type"],
            connection["export"], connection["access_mode"],
            connection["attachment_id"]) == ("attaching", "rw", "nbd", volume["id"], "rw",
                                             attachment["id"])
    assert _status(user, volume["id"]) == "attaching"
    # the export serves the disk the guest sees: raw, 1 GiB, writable
    info = subprocess.run(["qemu-img", "info", _nbd_url(connection)], capture_output=True,
                          text=True, check=True, timeout=30).stdout
    assert "file format: raw" in info and "(1073741824 bytes)" in info
    assert _qemu_io(_nbd_url(connection), "write -P 0x5a 0 4k").returncode == 0
    again = user.put(f"/attachments/{attachment['id']}",
                     json={"attachment": {"connector": CONNECTOR}})
    assert again.json()["attachment"]["connection_info"]["port"] == connection["port"]

    assert user.post(f"/attachments/{attachment['id']}/action", json={
        "os-complete": None}, headers={"OpenStack-API-Version": "volume 3.43"}
    ).status_code == 404
    completed = user.post(f"/attachments/{attachment['id']}/action",
                          json={"os-complete": None})
    assert completed.status_code == 204, completed.text
    shown = user.get(f"/volumes/{volume['id']}").json()["volume"]
    (attached,) = shown["attachments"]
    assert shown["status"] == "in-use"
    assert (attached["attachment_id"], attached["server_id"], attached["device"],
            attached["host_name"]) == (attachment["id"], SERVER, "/dev/vdb", None)
    assert attached["attached_at"]
    assert admin.get(f"/volumes/{volume['id']}").json()["volume"]["attachments"][0][
        "host_name"] == "compute1"

    in_use = user.delete(f"/volumes/{volume['id']}")
    assert "must not be migrating, attached" in _fault(in_use, 400)
    assert _fault(user.delete(f"/attachments/{attachment['id']}"), 409) == (
        f"Detach volume from instance {SERVER} using the Compute API")
    deleted = admin.delete(f"/attachments/{attachment['id']}")
    assert deleted.status_code == 200 and deleted.json() == {"attachments": []}
    assert _status(user, volume["id"]) == "available"
    assert not _listening(connection)
    assert "could not be found" in _fault(user.get(f"/attachments/{attachment['id']}"),
                                          404)
    # what was written through the export is in the volume's qcow2
    path = os.path.join(backend.volumes_dir(), volume["id"])
    assert subprocess.run(["qemu-io", "-f", "qcow2", "-c", "read -P 0x5a 0 4k", path],
                          capture_output=True, timeout=30, check=False).returncode == 0


def test_a_connector_at_create_and_a_read_only_mode(cloud, user, admin):
    volume = _volume(cloud, user)
    made = user.post("/attachments", json={"attachment": {
        "volume_uuid": volume["id"], "instance_uuid": SERVER, "connector": CONNECTOR,
        "mode": "ro"}})
    assert made.status_code == 200, made.text
    attachment = made.json()["attachment"]
    connection = attachment["connection_info"]
    assert (attachment["status"], attachment["attach_mode"], connection["access_mode"]) == (
        "attaching", "ro", "ro")
    url = _nbd_url(connection)
    assert _qemu_io(url, "read 0 4k", "-r").returncode == 0
    assert "Permission denied" in _qemu_io(url, "write 0 4k").stderr
    too_early = user.post("/attachments", json={"attachment": {
        "volume_uuid": volume["id"], "mode": "ro"}},
        headers={"OpenStack-API-Version": "volume 3.53"})
    assert "mode" in _fault(too_early, 400)
    assert admin.delete(f"/attachments/{attachment['id']}").status_code == 200
    assert _status(user, volume["id"]) == "available"


def test_lists_filters_versions_and_scope(cloud, user, admin):
    first, second = _volume(cloud, user), _volume(cloud, user)
    made = [user.post("/attachments", json={"attachment": {
        "volume_uuid": v["id"], "instance_uuid": SERVER}}).json()["attachment"]
        for v in (first, second)]
    listed = user.get("/attachments").json()["attachments"]
    assert {a["id"] for a in listed} == {a["id"] for a in made}
    assert set(listed[0]) == {"id", "status", "instance", "volume_id"}
    filtered = user.get("/attachments/detail", params={"volume_id": first["id"]})
    (only,) = filtered.json()["attachments"]
    assert only["id"] == made[0]["id"] and "connection_info" in only
    assert user.get("/attachments", params={"instance_id": SERVER, "limit": 1}).json()[
        "attachments"][0]["id"] in {a["id"] for a in made}
    assert "Invalid filters" in _fault(user.get("/attachments", params={"foo": "1"}), 400)
    assert _fault(user.get("/attachments", headers={
        "OpenStack-API-Version": "volume 3.26"}), 404) == (
        "API version 3.26 is not supported on this method.")

    other = f"other:{'0' * 32}"
    stranger = httpx.Client(base_url=f"{cloud.base_url}/volume/v3", timeout=60, headers={
        "X-Auth-Token": other, "OpenStack-API-Version": "volume 3.70"})
    assert stranger.get("/attachments").json()["attachments"] == []
    _fault(stranger.get(f"/attachments/{made[0]['id']}"), 404)
    _fault(stranger.post("/attachments", json={"attachment": {
        "volume_uuid": first["id"]}}), 404)
    _fault(user.post("/attachments", json={"attachment": {"volume_uuid": "x"}}), 400)
    _fault(user.post(f"/attachments/{made[0]['id']}/action", json={"os-nothing": None}),
           400)
    for attachment in made:  # unconnected reservations: their owner may delete them
        assert user.delete(f"/attachments/{attachment['id']}").status_code == 200
    assert {_status(user, v["id"]) for v in (first, second)} == {"available"}


def test_begin_and_roll_detaching(cloud, user, admin):
    volume = _volume(cloud, user)
    refused = user.post(f"/volumes/{volume['id']}/action", json={"os-begin_detaching": {}})
    assert _fault(refused, 400) == (
        "Invalid volume: Unable to detach volume. Volume status must be 'in-use' and "
        "attach_status must be 'attached' to detach.")
    attachment = user.post("/attachments", json={"attachment": {
        "volume_uuid": volume["id"], "instance_uuid": SERVER,
        "connector": CONNECTOR}}).json()["attachment"]
    user.post(f"/attachments/{attachment['id']}/action", json={"os-complete": None})
    begun = user.post(f"/volumes/{volume['id']}/action", json={"os-begin_detaching": {}})
    assert begun.status_code == 202, begun.text
    assert _status(user, volume["id"]) == "detaching"
    rolled = user.post(f"/volumes/{volume['id']}/action", json={"os-roll_detaching": {}})
    assert rolled.status_code == 202 and _status(user, volume["id"]) == "in-use"
    assert admin.delete(f"/attachments/{attachment['id']}").status_code == 200
    assert _status(user, volume["id"]) == "available"


def test_a_multiattach_volume_is_attached_to_two_servers_through_one_export(
        cloud, user, admin):
    made = admin.post("/types", json={"volume_type": {
        "name": "multi", "extra_specs": {"multiattach": "<is> True"}}})
    assert made.status_code == 200, made.text
    removed = user.post("/volumes", json={"volume": {"size": 1, "multiattach": True}})
    assert "multiattach parameter has been removed" in _fault(removed, 400)
    assert _fault(user.post("/volumes", json={"volume": {"size": 1, "multiattach": "x"}}),
                  400) == "Value 'x' for 'multiattach' is not a boolean."
    created = user.post("/volumes", json={"volume": {"size": 1, "volume_type": "multi"}})
    assert created.status_code == 202, created.text
    assert created.json()["volume"]["multiattach"] is True
    cloud.settle()
    volume_id = created.json()["volume"]["id"]
    assert _fault(admin.put(f"/types/{made.json()['volume_type']['id']}/extra_specs/"
                            "multiattach", json={"multiattach": "<is> False"}), 400) == (
        "Volume Type is currently in use.")

    servers = (SERVER, "0c9d8e7f-6a5b-4c3d-8e2f-1a0b9c8d7e6f")
    connections, attachment_ids = [], []
    for index, server in enumerate(servers):
        attached = user.post("/attachments", json={"attachment": {
            "volume_uuid": volume_id, "instance_uuid": server,
            "connector": {**CONNECTOR, "host": f"compute{index}"}}})
        assert attached.status_code == 200, attached.text
        attachment_ids.append(attached.json()["attachment"]["id"])
        connections.append(attached.json()["attachment"]["connection_info"])
        assert user.post(f"/attachments/{attachment_ids[-1]}/action",
                         json={"os-complete": None}).status_code == 204
        assert _status(user, volume_id) == "in-use"
    assert connections[0]["port"] == connections[1]["port"]  # one qemu-nbd, two clients
    both = [subprocess.Popen(["qemu-io", "-f", "raw", "-c", "read 0 512",
                              _nbd_url(connections[0])], stdout=subprocess.PIPE)
            for _ in servers]
    assert [reader.wait(timeout=30) for reader in both] == [0, 0]
    shown = user.get(f"/volumes/{volume_id}").json()["volume"]
    assert shown["multiattach"] is True
    assert sorted(a["server_id"] for a in shown["attachments"]) == sorted(servers)
    assert "must not be migrating, attached" in _fault(user.delete(f"/volumes/{volume_id}"),
                                                       400)

    left = admin.delete(f"/attachments/{attachment_ids[0]}").json()["attachments"]
    assert [a["id"] for a in left] == [attachment_ids[1]]
    assert _status(user, volume_id) == "in-use" and _listening(connections[0])
    assert _qemu_io(_nbd_url(connections[0]), "read 0 512").returncode == 0
    admin.delete(f"/attachments/{attachment_ids[1]}")
    assert _status(user, volume_id) == "available" and not _listening(connections[0])
