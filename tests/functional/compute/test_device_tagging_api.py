"""Device role tagging through real HTTP on the all-in-one (fake driver): tags given on
create (`networks[].tag`, `block_device_mapping_v2[].tag`), on os-interface attach and
on os-volume_attachments attach reach the guest's `devices` in the metadata service's
meta_data.json with the address the driver reports, leave it on detach, show in
os-interface from 2.70 (checked against tempest's schemas), and are refused outside
Nova's microversions."""

from __future__ import annotations

import json

import httpx
import pytest

from novalite.identity import bootstrap
from novalite.image import db as images
from novalite.instance_metadata import sign
from tests.functional.tempest_schemas import check

MV = "X-OpenStack-Nova-API-Version"
IMAGE = images.DEFAULT_IMAGE_ID


@pytest.fixture
def demo(cloud):
    """The demo project's clients (it owns `private`): compute, network, volume."""
    project = bootstrap.project_ids("demo")[0]
    token = {"X-Auth-Token": f"demo:{project}"}

    def client(path: str, **headers: str) -> httpx.Client:
        return httpx.Client(base_url=f"{cloud.base_url}{path}", timeout=30,
                            headers={**token, **headers})

    network = client("/networking/v2.0")
    private = network.get("/networks", params={"name": "private"}).json()["networks"][0]
    return {"project": project, "compute": client("/compute/v2.1", **{MV: "2.70"}),
            "network": network, "private": private,
            "volume": client("/volume/v3", **{"OpenStack-API-Version": "volume 3.70"})}


def _volume(cloud, demo) -> str:
    made = demo["volume"].post("/volumes", json={"volume": {"size": 1}})
    assert made.status_code == 202, made.text
    cloud.settle()
    return str(made.json()["volume"]["id"])


def _volume_status(demo, volume_id: str) -> str:
    return str(demo["volume"].get(f"/volumes/{volume_id}").json()["volume"]["status"])


def _meta_data(cloud, demo, server_id: str, version: str = "latest") -> dict:
    """meta_data.json as the guest reads it through the network node's proxy."""
    found = httpx.get(f"{cloud.base_url}/metadata/openstack/{version}/meta_data.json",
                      headers={"X-Instance-ID": server_id, "X-Tenant-ID": demo["project"],
                               "X-Instance-ID-Signature": sign(server_id, "")}, timeout=10)
    assert found.status_code == 200, found.text
    return dict(json.loads(found.text))


def _devices(cloud, demo, server_id: str) -> dict[str, dict]:
    return {d["tags"][0]: d for d in _meta_data(cloud, demo, server_id)["devices"]}


def _create(demo, version: str = "2.42", **server) -> httpx.Response:
    return demo["compute"].post("/servers", headers={MV: version}, json={"server": {
        "name": "tagged", "flavorRef": "1", "imageRef": IMAGE, **server}})


def _port(demo, server_id: str, tag: str | None = None) -> dict:
    ports = demo["network"].get("/ports", params={"device_id": server_id}).json()["ports"]
    return next(p for p in ports if tag is None or p["id"] == tag)


def test_tags_given_on_create_and_on_attach_reach_the_guests_devices(cloud, demo):
    data = _volume(cloud, demo)
    private = demo["private"]["id"]
    made = _create(demo, networks=[{"uuid": private, "tag": "nic-a"}, {"uuid": private}],
                   block_device_mapping_v2=[{"uuid": data, "source_type": "volume",
                                             "destination_type": "volume", "tag": "disk-a"}])
    assert made.status_code == 202, made.text
    server_id = made.json()["server"]["id"]
    cloud.wait_status(server_id, "ACTIVE")
    listed = check(demo["compute"].get(f"/servers/{server_id}/os-interface"), "v2_70",
                   "interfaces", "list_interfaces")["interfaceAttachments"]
    tagged = [i for i in listed if i["tag"] == "nic-a"]
    assert len(tagged) == 1 and len(listed) == 2
    devices = _devices(cloud, demo, server_id)
    assert devices == {
        "nic-a": {"type": "nic", "bus": "pci", "address": "0000:00:01.0",
                  "mac": tagged[0]["mac_addr"], "vf_trusted": False, "tags": ["nic-a"]},
        "disk-a": {"type": "disk", "bus": "pci", "address": "0000:01:00.0",
                   "serial": data, "tags": ["disk-a"]}}

    attached = check(demo["compute"].post(
        f"/servers/{server_id}/os-interface",
        json={"interfaceAttachment": {"net_id": private, "tag": "nic-b"}}),
        "v2_70", "interfaces", "get_create_interfaces")["interfaceAttachment"]
    assert attached["tag"] == "nic-b"
    shown = check(demo["compute"].get(
        f"/servers/{server_id}/os-interface/{attached['port_id']}"), "v2_70", "interfaces",
        "get_create_interfaces")["interfaceAttachment"]
    assert shown["tag"] == "nic-b"
    devices = _devices(cloud, demo, server_id)
    assert devices["nic-b"]["mac"] == attached["mac_addr"]
    assert devices["nic-b"]["address"] == "0000:02:00.0"  # hot-plugged: the next root port
    assert devices["nic-a"]["address"] == "0000:00:01.0"  # its tag outlived the refresh

    other = _volume(cloud, demo)
    attach = demo["compute"].post(f"/servers/{server_id}/os-volume_attachments", json={
        "volumeAttachment": {"volumeId": other, "tag": "disk-b"}})
    assert attach.status_code == 200, attach.text
    cloud.settle()
    assert _volume_status(demo, other) == "in-use"
    assert _devices(cloud, demo, server_id)["disk-b"] == {
        "type": "disk", "bus": "pci", "address": "0000:03:00.0", "serial": other,
        "tags": ["disk-b"]}

    detach = demo["compute"].delete(f"/servers/{server_id}/os-volume_attachments/{other}")
    assert detach.status_code == 202, detach.text
    cloud.settle()
    cloud.wait(lambda: "disk-b" not in _devices(cloud, demo, server_id))
    gone = demo["compute"].delete(f"/servers/{server_id}/os-interface/{attached['port_id']}")
    assert gone.status_code == 202, gone.text
    cloud.settle()
    assert set(_devices(cloud, demo, server_id)) == {"nic-a", "disk-a"}


def test_older_metadata_versions_show_what_they_had(cloud, demo):
    made = _create(demo, networks=[{"uuid": demo["private"]["id"], "tag": "nic"}])
    server_id = made.json()["server"]["id"]
    cloud.wait_status(server_id, "ACTIVE")
    assert "devices" not in _meta_data(cloud, demo, server_id, "2015-10-15")
    (nic,) = _meta_data(cloud, demo, server_id, "2016-06-30")["devices"]
    assert nic["tags"] == ["nic"] and "vf_trusted" not in nic
    (nic,) = _meta_data(cloud, demo, server_id, "2018-08-27")["devices"]
    assert nic["vf_trusted"] is False


def test_untagged_devices_are_not_listed(cloud, demo):
    made = _create(demo, networks=[{"uuid": demo["private"]["id"]}])
    server_id = made.json()["server"]["id"]
    cloud.wait_status(server_id, "ACTIVE")
    assert _meta_data(cloud, demo, server_id)["devices"] == []


def _refused(response: httpx.Response) -> str:
    assert response.status_code == 400, response.text
    return str(response.json()["badRequest"]["message"])


@pytest.mark.parametrize("version, nic, bdm", [
    ("2.31", True, False), ("2.31", False, True), ("2.33", False, True),
    ("2.37", True, False), ("2.41", False, True)])
def test_tags_outside_novas_microversions_are_refused_by_name(cloud, demo, version, nic,
                                                              bdm):
    network = {"uuid": demo["private"]["id"], **({"tag": "n"} if nic else {})}
    mapping = {"uuid": IMAGE, "source_type": "image", "destination_type": "volume",
               "volume_size": 1, **({"tag": "d"} if bdm else {})}
    message = _refused(_create(demo, version, networks=[network],
                               block_device_mapping_v2=[mapping]))
    assert "'tag'" in message


@pytest.mark.parametrize("version", ["2.32", "2.36"])
def test_a_nic_tag_before_2_37_is_honoured(cloud, demo, version):
    made = _create(demo, version, networks=[{"uuid": demo["private"]["id"], "tag": "old"}])
    assert made.status_code == 202, made.text
    server_id = made.json()["server"]["id"]
    cloud.wait_status(server_id, "ACTIVE")
    assert list(_devices(cloud, demo, server_id)) == ["old"]


def test_attach_tags_before_2_49_and_an_image_root_tag_are_refused(cloud, demo):
    made = _create(demo, networks="none")
    server_id = made.json()["server"]["id"]
    cloud.wait_status(server_id, "ACTIVE")
    interface = demo["compute"].post(
        f"/servers/{server_id}/os-interface", headers={MV: "2.48"},
        json={"interfaceAttachment": {"net_id": demo["private"]["id"], "tag": "t"}})
    assert "'tag'" in _refused(interface)
    volume = demo["compute"].post(
        f"/servers/{server_id}/os-volume_attachments", headers={MV: "2.48"},
        json={"volumeAttachment": {"volumeId": _volume(cloud, demo), "tag": "t"}})
    assert "'tag'" in _refused(volume)
    root = _create(demo, networks="none", block_device_mapping_v2=[{
        "uuid": IMAGE, "source_type": "image", "destination_type": "local",
        "boot_index": 0, "tag": "root"}])
    assert "tag on the image's root disk" in _refused(root)
