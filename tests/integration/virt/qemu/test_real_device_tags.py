"""Device role tags on a real QEMU guest (TCG): a NIC and a volume tagged on create, a
volume tagged on attach. The guest's user data prints where it finds each NIC (by MAC)
and each virtio disk (by serial, its volume's id) on its PCI buses; the addresses the
metadata service and the config drive give for the tagged ones must be those."""

from __future__ import annotations

import base64
import json
import os
import re
import subprocess

import httpx
import pytest

from novalite.conf import CONF
from novalite.image import db as images
from novalite.instance_metadata import sign
from novalite.virt.qemu import images as instance_files
from novalite.virt.qemu.guest_image import USERDATA_MARKER
from novalite.volume.exports import Exports
from tests.integration.virt.qemu.test_real_guests import (
    NANO,
    qemu_cloud,  # noqa: F401 (fixture)
    wait_console,
    wait_settled,
)

FOUND = "NOVALITE-DEVICE"
# Each NIC once (its PCI function is the parent of its virtio device), then each virtio
# disk with a serial as it appears (a hot-plugged one later).
WATCH = f"""#!/bin/sh
where() {{ p=$(readlink -f "$1/device"); p=${{p%/*}}; echo ${{p##*/}}; }}
for dev in /sys/class/net/eth*; do
  echo "{FOUND} $(where $dev) $(cat $dev/address)"
done
(
seen=""
while true; do
  for dev in /sys/block/vd*; do
    serial=$(cat "$dev/serial" 2> /dev/null)
    [ -n "$serial" ] || continue
    case " $seen " in *" $serial "*) continue ;; esac
    seen="$seen $serial"
    echo "{FOUND} $(where $dev) $serial"
  done
  sleep 1
done
) &
"""
MV = {"X-OpenStack-Nova-API-Version": "2.49"}


@pytest.fixture
def cloud(qemu_cloud):  # noqa: F811 (the imported fixture)
    yield qemu_cloud
    exports = Exports(CONF.host)
    for attachment_id in exports.known():
        exports.stop(attachment_id)


def _seen(console: str) -> dict[str, str]:
    """MAC or volume id (its first 20 characters: a virtio disk's serial is no longer)
    -> the PCI address the guest found it at."""
    return {name: address for address, name in
            re.findall(rf"{FOUND} (\S+) (\S+)", console)}


def _console(cloud, server_id: str) -> str:
    return str(cloud.api.post(f"/servers/{server_id}/action",
                              json={"os-getConsoleOutput": {"length": None}}).json()["output"])


def _meta_data(cloud, server: dict) -> dict:
    found = httpx.get(f"{cloud.base_url}/metadata/openstack/latest/meta_data.json",
                      headers={"X-Instance-ID": server["id"],
                               "X-Tenant-ID": server["tenant_id"],
                               "X-Instance-ID-Signature": sign(server["id"], "")}, timeout=10)
    assert found.status_code == 200, found.text
    return dict(json.loads(found.text))


def _config_drive(server_id: str) -> dict:
    """meta_data.json as written on the guest's config drive."""
    path = os.path.join(instance_files.instances_path(), server_id, "disk.config")
    shown = subprocess.run(["isoinfo", "-R", "-i", path, "-x",
                            "/openstack/latest/meta_data.json"],
                           check=True, capture_output=True, timeout=30)
    return dict(json.loads(shown.stdout))


def _addresses(meta: dict) -> dict[str, tuple[str, str]]:
    return {d["tags"][0]: (d.get("mac") or d.get("serial"), d["address"])
            for d in meta["devices"]}


def test_tagged_devices_are_where_the_guest_finds_them(cloud):
    volumes = httpx.Client(base_url=f"{cloud.base_url}/volume/v3", timeout=60,
                           headers={"OpenStack-API-Version": "volume 3.70"})
    first, second = (volumes.post("/volumes", json={"volume": {"size": 1}}).json()[
        "volume"]["id"] for _ in range(2))
    with httpx.Client(base_url=f"{cloud.base_url}/networking/v2.0", timeout=30) as client:
        private, = client.get("/networks", params={"name": "private"}).json()["networks"]
    cloud.settle()
    created = cloud.api.post("/servers", headers=MV, json={"server": {
        "name": "tagged", "flavorRef": NANO, "imageRef": images.DEFAULT_IMAGE_ID,
        "config_drive": True, "user_data": base64.b64encode(WATCH.encode()).decode(),
        "networks": [{"uuid": private["id"], "tag": "nic-a"}],
        "block_device_mapping_v2": [{"uuid": first, "source_type": "volume",
                                     "destination_type": "volume", "tag": "disk-a"}]}})
    assert created.status_code == 202, created.text
    server_id = created.json()["server"]["id"]
    server = wait_settled(cloud, server_id, "ACTIVE", 1)
    wait_console(cloud, server_id, f"{USERDATA_MARKER} rc=0")
    attached = cloud.api.post(f"/servers/{server_id}/os-volume_attachments", headers=MV,
                              json={"volumeAttachment": {"volumeId": second,
                                                         "tag": "disk-b"}})
    assert attached.status_code == 200, attached.text
    cloud.settle()
    wait_console(cloud, server_id, f"{FOUND} ", count=3)
    seen = _seen(_console(cloud, server_id))
    (mac,) = [name for name in seen if ":" in name]

    reported = _addresses(_meta_data(cloud, server))
    assert reported == {"nic-a": (mac, seen[mac]), "disk-a": (first, seen[first[:20]]),
                        "disk-b": (second, seen[second[:20]])}
    # written when the guest was made: what it had then
    assert _addresses(_config_drive(server_id)) == {"nic-a": reported["nic-a"],
                                                    "disk-a": reported["disk-a"]}
