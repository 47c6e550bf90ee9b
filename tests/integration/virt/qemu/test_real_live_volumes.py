"""Real QEMU guests (TCG) with volumes live-migrated between two QEMU computes sharing
this machine: the guest keeps running (its new console shows no boot), reads and
writes its attached volume on the destination through the same export, the volume is
attached on the destination alone and detaches cleanly; a volume-backed guest moves
with nothing to mirror."""

from __future__ import annotations

import os
import subprocess

import httpx

from novalite.conf import CONF
from novalite.image import db as images
from novalite.virt.qemu.guest_image import MARKER
from novalite.volume.exports import Exports
from tests.integration.virt.qemu.test_real_guests import wait_console, wait_settled
from tests.integration.virt.qemu.test_real_moves import LIVE, _guest_dir, _host, _settled
from tests.integration.virt.qemu.test_real_volumes import (
    _boot_from,
    _create,
    _read,
    _status,
    _volumes,
    _write_marker,
    two_hosts_no_export_left,  # noqa: F401 (fixture)
)
from tests.waiting import wait_for

# Whenever what the volume starts with changes (read past the guest's page cache), the
# guest says what it read and writes a numbered line 4 KiB into the volume.
LIVE_WATCH = """#!/bin/sh
(
last=none
n=0
while true; do
  for dev in /sys/block/vd*; do
    [ "$(cat "$dev/serial" 2> /dev/null)" = "{serial}" ] || continue
    echo 1 > /proc/sys/vm/drop_caches
    seen=$(dd if="/dev/${{dev##*/}}" bs=512 count=1 2> /dev/null | tr -cd 'A-Za-z0-9-')
    [ "$seen" = "$last" ] && continue
    last=$seen
    n=$((n + 1))
    echo "LIVE-READ [$seen]"
    echo "LIVEWROTE$n" | dd of="/dev/${{dev##*/}}" bs=512 seek=8 conv=notrunc,fsync \\
      2> /dev/null && echo "LIVE-WROTE-$n-DONE"
  done
  sleep 1
done
) &
"""


def _live(cloud, server_id: str) -> str:
    """Live-migrated; the host it left."""
    source = _host(cloud, server_id)
    response = cloud.api.post(f"/servers/{server_id}/action", headers=LIVE, json={
        "os-migrateLive": {"host": None, "block_migration": "auto"}})
    assert response.status_code == 202, response.text
    moved = _settled(cloud, server_id, "ACTIVE")
    assert moved["OS-EXT-SRV-ATTR:host"] != source
    assert moved["OS-EXT-STS:power_state"] == 1
    assert not os.path.exists(_guest_dir(source, server_id))
    # the migration is completed just after the server is idle on its new host, as Nova
    cloud.wait(lambda: [m["status"] for m in cloud.api.get(
        "/os-migrations", params={"instance_uuid": server_id}).json()["migrations"]] == [
        "completed"])
    return source


def _attached_on(volumes: httpx.Client, volume_id: str, server_id: str, host: str) -> dict:
    """The volume's one attachment, the server's on `host` (as an admin sees it). The
    guest may use the disk before the compute completes the attachment (in-use)."""

    def in_use() -> dict | None:
        volume = volumes.get(f"/volumes/{volume_id}").json()["volume"]
        return volume if volume["status"] == "in-use" else None

    volume = wait_for(in_use, what=f"volume {volume_id} in-use")
    (attachment,) = volume["attachments"]
    assert (attachment["server_id"], attachment["host_name"]) == (server_id, host)
    (detail,) = volumes.get("/attachments/detail").json()["attachments"]
    assert detail["id"] == attachment["attachment_id"]
    return dict(detail)


def _write_through(connection: dict, marker: str, directory: str) -> None:
    """`marker` at the volume's start, through its export (a client beside the guest's)."""
    source = f"{directory}/marker"
    with open(source, "wb") as out:
        out.write(marker.encode().ljust(512, b"\0"))
    url = f"nbd://{connection['host']}:{connection['port']}/{connection['export']}"
    subprocess.run(["qemu-io", "-f", "raw", "-c", f"write -s {source} 0 512", url],
                   check=True, capture_output=True, timeout=60)


def test_a_guest_reads_and_writes_its_volume_on_the_host_it_live_migrated_to(
        two_hosts_no_export_left, tmp_path):  # noqa: F811 (the imported fixture)
    cloud = two_hosts_no_export_left
    volumes = _volumes(cloud)
    volume_id = volumes.post("/volumes", json={"volume": {"size": 1}}).json()["volume"]["id"]
    cloud.settle()
    _write_marker(volume_id, "LIVE-MARKER-before", str(tmp_path))
    created = _create(cloud, "live-with-volume", LIVE_WATCH.format(serial=volume_id[:20]),
                      imageRef=images.DEFAULT_IMAGE_ID)
    assert created.status_code == 202, created.text
    server_id = created.json()["server"]["id"]
    wait_settled(cloud, server_id, "ACTIVE", 1)
    wait_console(cloud, server_id, MARKER)
    attached = cloud.api.post(f"/servers/{server_id}/os-volume_attachments",
                              json={"volumeAttachment": {"volumeId": volume_id}})
    assert attached.status_code == 200, attached.text
    out = wait_console(cloud, server_id, "LIVE-WROTE-1-DONE")
    assert "LIVE-READ [LIVE-MARKER-before]" in out
    before = _attached_on(volumes, volume_id, server_id, _host(cloud, server_id))

    source = _live(cloud, server_id)
    target = _host(cloud, server_id)
    after = _attached_on(volumes, volume_id, server_id, target)
    assert after["id"] != before["id"]
    assert Exports(CONF.host).known() == [after["id"]]  # the one export, handed over
    _write_through(after["connection_info"], "LIVE-MARKER-after", str(tmp_path))
    out = wait_console(cloud, server_id, "LIVE-WROTE-2-DONE")  # read, written there
    assert "LIVE-READ [LIVE-MARKER-after]" in out
    assert out.count(MARKER) == 0  # the new host's console: the guest did not boot again
    assert source != target

    detached = cloud.api.delete(f"/servers/{server_id}/os-volume_attachments/{volume_id}")
    assert detached.status_code == 202, detached.text
    cloud.wait(lambda: _status(volumes, volume_id) == "available", timeout=120)
    assert Exports(CONF.host).known() == []
    assert "LIVEWROTE2" in _read(volume_id, 4096, 16)  # the destination's write


BFV_ALIVE = """#!/bin/sh
(while true; do echo "BFV-ALIVE $(cut -d' ' -f1 /proc/uptime)"; sleep 2; done) &
"""


def test_a_volume_backed_guest_live_migrates_with_nothing_to_mirror(
        two_hosts_no_export_left):  # noqa: F811 (the imported fixture)
    cloud = two_hosts_no_export_left
    volumes = _volumes(cloud)
    made = volumes.post("/volumes", json={"volume": {
        "size": 1, "imageRef": images.DEFAULT_IMAGE_ID}}).json()["volume"]["id"]
    cloud.wait(lambda: _status(volumes, made) == "available", timeout=120)
    server_id = _boot_from(cloud, made, BFV_ALIVE)
    wait_console(cloud, server_id, "BFV-ALIVE")

    _live(cloud, server_id)
    out = wait_console(cloud, server_id, "BFV-ALIVE")  # still running, on its new host
    assert out.count(MARKER) == 0
    after = _attached_on(volumes, made, server_id, _host(cloud, server_id))
    assert Exports(CONF.host).known() == [after["id"]]
    cloud.api.delete(f"/servers/{server_id}")
    cloud.wait_gone(server_id)
    cloud.wait(lambda: _status(volumes, made) == "available", timeout=120)
