"""A real volume in a real guest: the volume service's qemu-nbd export hot-plugged into a
running QEMU guest (TCG) through the whole cloud, the guest reading what the test wrote
into the volume's file and writing back, the volume kept across a hard reboot, and
detached again with its export gone; and servers booted one after the other from one
volume made from the default image, the second reading what the first wrote.

The default guest has no udev: its user data (from a config drive) does what udev's
persistent-storage rule would, linking each virtio disk as /dev/disk/by-id/virtio-<its
serial>, and prints what it finds there."""

from __future__ import annotations

import base64
import os
import socket
import subprocess

import httpx
import pytest

from novalite.conf import CONF
from novalite.image import db as images
from novalite.virt.qemu import images as qemu_images
from novalite.virt.qemu.guest_image import DISK_MARKER, DISK_TEXT, MARKER, USERDATA_MARKER
from novalite.volume import backend
from novalite.volume.exports import Exports
from tests.integration.virt.qemu.test_real_guests import (
    NANO,
    action,
    console,
    qemu_cloud,  # noqa: F401 (fixture)
    wait_console,
    wait_settled,
)

FOUND = "NOVALITE-VOLUME"
GUEST_WROTE = "GuestWroteThis"  # letters: qemu-io shows only those as text
# As udev's 60-persistent-storage rule: /dev/disk/by-id/virtio-<serial> per virtio disk
# (the root disk and config drive have no serial); then what the disk starts with, and
# a line the guest writes 4 KiB into it.
WATCH = f"""#!/bin/sh
(
seen=""
while true; do
  for dev in /sys/block/vd*; do
    serial=$(cat "$dev/serial" 2> /dev/null)
    name=${{dev##*/}}
    [ -n "$serial" ] || continue
    case " $seen " in *" $name:$serial "*) continue ;; esac
    seen="$seen $name:$serial"
    mkdir -p /dev/disk/by-id
    ln -sf "/dev/$name" "/dev/disk/by-id/virtio-$serial"
    found=$(head -c 64 "/dev/disk/by-id/virtio-$serial" | tr -cd 'A-Za-z0-9-')
    echo "{FOUND} virtio-$serial $found"
    echo {GUEST_WROTE} | dd of="/dev/disk/by-id/virtio-$serial" bs=512 seek=8 \\
      conv=notrunc,fsync 2> /dev/null
  done
  sleep 1
done
) &
"""


@pytest.fixture
def no_export_left(qemu_cloud):  # noqa: F811 (the imported fixture)
    yield qemu_cloud
    exports = Exports(CONF.host)
    for attachment_id in exports.known():
        exports.stop(attachment_id)


def _volumes(cloud) -> httpx.Client:
    return httpx.Client(base_url=f"{cloud.base_url}/volume/v3", timeout=60,
                        headers={"OpenStack-API-Version": "volume 3.70"})


def _create(cloud, name: str, user_data: str, **server) -> httpx.Response:
    """A NANO guest without network whose user data (on a config drive) is `user_data`."""
    return cloud.api.post("/servers", headers={"OpenStack-API-Version": "compute 2.37"},
                          json={"server": {
                              "name": name, "flavorRef": NANO, "networks": "none",
                              "config_drive": True,
                              "user_data": base64.b64encode(user_data.encode()).decode(),
                              **server}})


def _status(volumes: httpx.Client, volume_id: str) -> str:
    return str(volumes.get(f"/volumes/{volume_id}").json()["volume"]["status"])


def _write_marker(volume_id: str, marker: str, directory: str) -> None:
    source = os.path.join(directory, "marker")
    with open(source, "wb") as out:
        out.write(marker.encode().ljust(512, b"\0"))
    subprocess.run(["qemu-io", "-f", "qcow2", "-c", f"write -s {source} 0 512",
                    os.path.join(backend.volumes_dir(), volume_id)],
                   check=True, capture_output=True, timeout=30)


def _read(volume_id: str, offset: int, length: int) -> str:
    """What the volume holds there, as qemu-io's dump shows it (text on the right)."""
    dump = subprocess.run(["qemu-io", "-r", "-f", "qcow2", "-c",
                           f"read -v {offset} {length}",
                           os.path.join(backend.volumes_dir(), volume_id)],
                          check=True, capture_output=True, text=True, timeout=30).stdout
    return "".join(line[-16:] for line in dump.splitlines() if line.startswith("0"))


def _listening(connection: dict) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex((connection["host"], int(connection["port"]))) == 0


def test_a_volume_hot_plugged_into_a_running_guest(no_export_left, tmp_path):
    cloud = no_export_left
    volumes = _volumes(cloud)
    created = _create(cloud, "with-volume", WATCH, imageRef=images.DEFAULT_IMAGE_ID)
    assert created.status_code == 202, created.text
    server_id = created.json()["server"]["id"]
    volume = volumes.post("/volumes", json={"volume": {"size": 1, "name": "data"}})
    volume_id = volume.json()["volume"]["id"]
    cloud.settle()
    _write_marker(volume_id, "NOVALITE-MARKER-from-the-test", str(tmp_path))
    wait_settled(cloud, server_id, "ACTIVE", 1)
    wait_console(cloud, server_id, f"{USERDATA_MARKER} rc=0")

    attached = cloud.api.post(f"/servers/{server_id}/os-volume_attachments",
                              json={"volumeAttachment": {"volumeId": volume_id}})
    assert attached.status_code == 200, attached.text
    cloud.settle()
    assert _status(volumes, volume_id) == "in-use"
    found = f"{FOUND} virtio-{volume_id[:20]} NOVALITE-MARKER-from-the-test"
    wait_console(cloud, server_id, found)
    assert cloud.server(server_id)["os-extended-volumes:volumes_attached"] == [
        {"id": volume_id}]

    # a guest the driver starts again has the volume from the start
    action(cloud, server_id, {"reboot": {"type": "HARD"}})
    wait_settled(cloud, server_id, "ACTIVE", 1)
    wait_console(cloud, server_id, MARKER, 2)
    wait_console(cloud, server_id, found, 2)

    (attachment,) = volumes.get("/attachments/detail").json()["attachments"]
    connection = attachment["connection_info"]
    assert _listening(connection)
    detached = cloud.api.delete(f"/servers/{server_id}/os-volume_attachments/{volume_id}")
    assert detached.status_code == 202, detached.text
    cloud.settle()
    assert _status(volumes, volume_id) == "available"
    assert not _listening(connection) and Exports(CONF.host).known() == []
    assert cloud.server(server_id)["os-extended-volumes:volumes_attached"] == []
    assert GUEST_WROTE in _read(volume_id, 4096, 32)
    assert console(cloud, server_id).count(found) == 2
    assert cloud.api.delete(f"/servers/{server_id}").status_code == 204
    cloud.wait_gone(server_id)


# The boot volume holds novalite-tiny's disk, which the guest's init mounts (read-only)
# at /mnt: the first guest writes a file on it, the next one reads it back.
WRITER = """#!/bin/sh
mount -o remount,rw /mnt && echo kept-on-the-volume > /mnt/bfv.txt && sync &&
  mount -o remount,ro /mnt && echo BFV-WROTE
"""
READER = """#!/bin/sh
echo "BFV-READ $(cat /mnt/bfv.txt)"
"""


def _boot_from(cloud, volume_id: str, user_data: str) -> str:
    created = _create(cloud, "from-volume", user_data, block_device_mapping_v2=[{
        "uuid": volume_id, "source_type": "volume", "destination_type": "volume",
        "boot_index": 0, "delete_on_termination": False}])
    assert created.status_code == 202, created.text
    server_id = str(created.json()["server"]["id"])
    wait_settled(cloud, server_id, "ACTIVE", 1)
    return server_id


def test_servers_booted_one_after_the_other_from_one_volume(no_export_left):
    cloud = no_export_left
    volumes = _volumes(cloud)
    made = volumes.post("/volumes", json={"volume": {
        "size": 1, "name": "bootvol", "imageRef": images.DEFAULT_IMAGE_ID}})
    assert made.status_code == 202, made.text
    volume_id = made.json()["volume"]["id"]
    cloud.wait(lambda: _status(volumes, volume_id) == "available", timeout=60)

    first = _boot_from(cloud, volume_id, WRITER)
    assert cloud.server(first)["image"] == ""
    out = wait_console(cloud, first, f"{USERDATA_MARKER} rc=0")
    assert f"{DISK_MARKER} {DISK_TEXT}" in out and "BFV-WROTE" in out
    assert not os.path.exists(os.path.join(qemu_images.instances_path(), first, "disk"))
    assert cloud.api.delete(f"/servers/{first}").status_code == 204
    cloud.wait_gone(first)
    cloud.settle()
    assert _status(volumes, volume_id) == "available"
    assert Exports(CONF.host).known() == []

    second = _boot_from(cloud, volume_id, READER)
    wait_console(cloud, second, "BFV-READ kept-on-the-volume")
    assert cloud.api.delete(f"/servers/{second}").status_code == 204
    cloud.wait_gone(second)
    cloud.settle()
    assert _status(volumes, volume_id) == "available"


# Each virtio disk's size in 512-byte sectors, printed whenever it changes.
SIZES = """#!/bin/sh
(
while true; do
  for dev in /sys/block/vd*; do
    size=$(cat "$dev/size")
    seen=$(cat "/tmp/size-${dev##*/}" 2> /dev/null)
    [ "$size" = "$seen" ] && continue
    echo "$size" > "/tmp/size-${dev##*/}"
    echo "NOVALITE-SIZE $(cat "$dev/serial" 2> /dev/null) $size"
  done
  sleep 1
done
) &
"""


def test_an_attached_volume_grows_in_the_running_guest(no_export_left):
    cloud = no_export_left
    volumes = _volumes(cloud)
    created = _create(cloud, "growing", SIZES, imageRef=images.DEFAULT_IMAGE_ID)
    server_id = created.json()["server"]["id"]
    volume_id = volumes.post("/volumes", json={"volume": {"size": 1}}).json()["volume"]["id"]
    cloud.settle()
    wait_settled(cloud, server_id, "ACTIVE", 1)
    wait_console(cloud, server_id, f"{USERDATA_MARKER} rc=0")
    attached = cloud.api.post(f"/servers/{server_id}/os-volume_attachments",
                              json={"volumeAttachment": {"volumeId": volume_id}})
    assert attached.status_code == 200, attached.text
    cloud.settle()
    wait_console(cloud, server_id, f"NOVALITE-SIZE {volume_id[:20]} 2097152")

    grown = volumes.post(f"/volumes/{volume_id}/action",
                         json={"os-extend": {"new_size": 2}})
    assert grown.status_code == 202, grown.text
    cloud.settle()
    wait_console(cloud, server_id, f"NOVALITE-SIZE {volume_id[:20]} 4194304")
    assert _status(volumes, volume_id) == "in-use"


@pytest.fixture
def two_hosts_no_export_left(two_qemu_hosts):
    yield two_qemu_hosts
    exports = Exports(CONF.host)
    for attachment_id in exports.known():
        exports.stop(attachment_id)


def test_a_volume_goes_with_its_guest_on_a_cold_migration(two_hosts_no_export_left,
                                                          tmp_path):
    """Migrated to the other compute, the guest reads the marker from its volume there,
    through the export of the attachment made for the destination; the source's export
    is gone."""
    cloud = two_hosts_no_export_left
    volumes = _volumes(cloud)
    created = cloud.api.post("/servers", json={"server": {
        "name": "moves-with-volume", "flavorRef": NANO, "imageRef": images.DEFAULT_IMAGE_ID,
        "networks": "none", "config_drive": True,
        "user_data": base64.b64encode(WATCH.encode()).decode()}},
        headers={"OpenStack-API-Version": "compute 2.37"})
    assert created.status_code == 202, created.text
    server_id = created.json()["server"]["id"]
    volume_id = volumes.post("/volumes", json={"volume": {"size": 1}}).json()["volume"]["id"]
    cloud.settle()
    _write_marker(volume_id, "NOVALITE-MARKER-carried-over", str(tmp_path))
    wait_settled(cloud, server_id, "ACTIVE", 1)
    attached = cloud.api.post(f"/servers/{server_id}/os-volume_attachments",
                              json={"volumeAttachment": {"volumeId": volume_id}})
    assert attached.status_code == 200, attached.text
    found = f"{FOUND} virtio-{volume_id[:20]} NOVALITE-MARKER-carried-over"
    wait_console(cloud, server_id, found)
    source = cloud.server(server_id)["OS-EXT-SRV-ATTR:host"]
    (before,) = volumes.get("/attachments/detail").json()["attachments"]

    action(cloud, server_id, {"migrate": None})
    moved = cloud.wait(lambda: (s := cloud.server(server_id))["status"] == "VERIFY_RESIZE"
                       and s["OS-EXT-STS:task_state"] is None and s, timeout=180)
    assert moved["OS-EXT-SRV-ATTR:host"] != source
    wait_console(cloud, server_id, found)  # the new host's console: read there
    assert cloud.api.post(f"/servers/{server_id}/action",
                          json={"confirmResize": None}).status_code == 204
    wait_settled(cloud, server_id, "ACTIVE", 1)
    assert _status(volumes, volume_id) == "in-use"
    (after,) = volumes.get("/attachments/detail").json()["attachments"]
    assert after["id"] != before["id"] and after["instance"] == server_id
    assert Exports(CONF.host).known() == [after["id"]]
    assert _listening(after["connection_info"])
    # (unless the new export happened to get the port the old one let go of)
    assert (after["connection_info"]["port"] == before["connection_info"]["port"]
            or not _listening(before["connection_info"]))


# Two guests on one multiattach volume, raw block I/O on its sector 16 (no filesystem:
# two guests mounting one would corrupt it). The writer writes a line once the disk is
# there; the reader prints what the sector holds whenever it changes, reading past its
# own page cache (which knows nothing of the other guest's writes).
MULTI_WRITER = """#!/bin/sh
(
while true; do
  for dev in /sys/block/vd*; do
    [ "$(cat "$dev/serial" 2> /dev/null)" = "{serial}" ] || continue
    echo MULTI-FROM-A | dd of="/dev/${{dev##*/}}" bs=512 seek=16 conv=notrunc,fsync \\
      2> /dev/null && echo NOVALITE-A-WROTE
    exit 0
  done
  sleep 1
done
) &
"""
MULTI_READER = """#!/bin/sh
(
last=none
while true; do
  for dev in /sys/block/vd*; do
    [ "$(cat "$dev/serial" 2> /dev/null)" = "{serial}" ] || continue
    echo 1 > /proc/sys/vm/drop_caches
    seen=$(dd if="/dev/${{dev##*/}}" bs=512 skip=16 count=1 2> /dev/null \\
      | tr -cd 'A-Za-z0-9-')
    [ "$seen" = "$last" ] || echo "NOVALITE-B-READ [$seen]"
    last=$seen
  done
  sleep 1
done
) &
"""


def _attach_shared(cloud, server_id: str, volume_id: str) -> None:
    attached = cloud.api.post(f"/servers/{server_id}/os-volume_attachments",
                              headers={"OpenStack-API-Version": "compute 2.60"},
                              json={"volumeAttachment": {"volumeId": volume_id}})
    assert attached.status_code == 200, attached.text
    cloud.settle()


def test_a_multiattach_volume_shared_by_two_running_guests(no_export_left):
    """Guest B sees what guest A writes through their one export; A detached, B still
    reads the volume (what the test then writes through the export)."""
    cloud = no_export_left
    volumes = _volumes(cloud)
    assert volumes.post("/types", json={"volume_type": {
        "name": "multi", "extra_specs": {"multiattach": "<is> True"}}}).status_code == 200
    made = volumes.post("/volumes", json={"volume": {"size": 1, "volume_type": "multi"}})
    volume_id = made.json()["volume"]["id"]
    cloud.settle()
    servers = {}
    for name, script in (("a", MULTI_WRITER), ("b", MULTI_READER)):
        created = _create(cloud, f"multi-{name}", script.format(serial=volume_id[:20]),
                          imageRef=images.DEFAULT_IMAGE_ID)
        assert created.status_code == 202, created.text
        servers[name] = created.json()["server"]["id"]
    for server_id in servers.values():
        wait_settled(cloud, server_id, "ACTIVE", 1)
        wait_console(cloud, server_id, f"{USERDATA_MARKER} rc=0")

    _attach_shared(cloud, servers["b"], volume_id)
    wait_console(cloud, servers["b"], "NOVALITE-B-READ []")
    _attach_shared(cloud, servers["a"], volume_id)
    wait_console(cloud, servers["a"], "NOVALITE-A-WROTE")
    wait_console(cloud, servers["b"], "NOVALITE-B-READ [MULTI-FROM-A]")
    shown = volumes.get(f"/volumes/{volume_id}").json()["volume"]
    assert sorted(a["server_id"] for a in shown["attachments"]) == sorted(servers.values())
    assert len(Exports(CONF.host).known()) == 1  # one qemu-nbd, both guests its clients

    detached = cloud.api.delete(
        f"/servers/{servers['a']}/os-volume_attachments/{volume_id}")
    assert detached.status_code == 202, detached.text
    cloud.settle()
    assert _status(volumes, volume_id) == "in-use"
    (left,) = volumes.get("/attachments/detail").json()["attachments"]
    assert left["instance"] == servers["b"] and _listening(left["connection_info"])
    assert Exports(CONF.host).known() == [left["id"]]  # the one export, handed over
    url = (f"nbd://{left['connection_info']['host']}:{left['connection_info']['port']}/"
           f"{left['connection_info']['export']}")
    subprocess.run(["qemu-io", "-f", "raw", "-c", "write -P 0x41 8192 16", url],
                   check=True, capture_output=True, timeout=30)
    wait_console(cloud, servers["b"], f"NOVALITE-B-READ [{'A' * 16}]")

    for server_id in servers.values():
        assert cloud.api.delete(f"/servers/{server_id}").status_code == 204
        cloud.wait_gone(server_id)
    cloud.settle()
    assert _status(volumes, volume_id) == "available"
    assert not _listening(left["connection_info"]) and Exports(CONF.host).known() == []
