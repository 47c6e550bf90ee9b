"""The volumes issue's steps with the unmodified `openstack` CLI and openstacksdk:
volumes created, listed, shown, changed and deleted on the file backend, snapshots and
volumes copied from them, from a volume or from an image, extend, volume types with the
`__DEFAULT__` one, the volume quotas and limits, a volume attached to a server and
detached again, servers booted from an existing volume and from one made from an
image, and a volume uploaded into an image."""

from __future__ import annotations

from openstack import connection
from openstack.config import OpenStackConfig

from tests.acceptance.cli import Cli
from tests.waiting import wait_for


def _status(cli: Cli, volume: str, *statuses: str) -> dict:
    return wait_for(lambda: (v := cli.json("volume", "show", volume))["status"] in statuses
                    and v, timeout=60, interval=0.5, what=f"{volume} {statuses}")


def test_volumes_and_types_with_the_cli(cloud):
    demo = Cli(cloud.clouds_yaml, "novalite")
    admin = Cli(cloud.clouds_yaml, "novalite-admin")

    types = {t["Name"] for t in demo.json("volume", "type", "list")}
    assert "__DEFAULT__" in types
    fast = admin.json("volume", "type", "create", "--property", "tier=fast", "fast")
    assert fast["name"] == "fast" and fast["properties"] == {"tier": "fast"}
    assert "fast" in {t["Name"] for t in admin.json("volume", "type", "list")}

    created = demo.json("volume", "create", "--size", "1", "--description", "d",
                        "--property", "k=v", "--type", "fast", "data")
    assert created["status"] == "creating"
    data = _status(demo, "data", "available")
    assert (data["size"], data["type"], data["properties"]) == (1, "fast", {"k": "v"})
    listed = {v["Name"]: v for v in demo.json("volume", "list")}
    assert listed["data"]["Status"] == "available" and listed["data"]["Size"] == 1

    demo.ok("volume", "set", "--name", "data2", "--property", "a=b", "data")
    changed = demo.json("volume", "show", "data2")
    assert changed["properties"] == {"k": "v", "a": "b"}

    demo.ok("volume", "delete", "data2")
    wait_for(lambda: "data2" not in {v["Name"] for v in demo.json("volume", "list")},
             timeout=60, interval=0.5, what="data2 deleted")
    admin.ok("volume", "type", "delete", "fast")
    (pool,) = admin.json("volume", "backend", "pool", "list", "--long")
    assert pool["Name"].endswith("@file#file")
    assert pool["Capabilities"]["total_capacity_gb"] == 100


def test_volume_quotas_and_limits_with_the_cli(cloud):
    demo = Cli(cloud.clouds_yaml, "novalite")
    admin = Cli(cloud.clouds_yaml, "novalite-admin")
    quotas = {r["Resource"]: r["Limit"] for r in demo.json("quota", "show")}
    assert (quotas["volumes"], quotas["snapshots"], quotas["gigabytes"]) == (10, 10, 1000)
    assert quotas["instances"] == 10  # compute's are there too
    admin.ok("quota", "set", "--volumes", "7", "demo")
    try:
        usage = {r["Resource"]: r for r in admin.json("quota", "show", "--usage", "demo")}
        assert usage["volumes"]["Limit"] == 7 and usage["volumes"]["In Use"] == 0
    finally:
        admin.ok("quota", "delete", "--volume", "demo")
    absolute = {r["Name"]: r["Value"] for r in demo.json("limits", "show", "--absolute")}
    assert (absolute["max_total_volumes"], absolute["total_volumes_used"]) == (10, 0)


def test_snapshots_copies_and_extend_with_the_cli(cloud):
    demo = Cli(cloud.clouds_yaml, "novalite")
    demo.ok("volume", "create", "--size", "1", "origin")
    _status(demo, "origin", "available")

    snapshot = demo.json("volume", "snapshot", "create", "--volume", "origin", "snap1")
    assert snapshot["status"] == "creating"
    wait_for(lambda: demo.json("volume", "snapshot", "show", "snap1")["status"] == "available",
             timeout=60, interval=0.5, what="snap1 available")
    listed = {s["Name"]: s for s in demo.json("volume", "snapshot", "list")}
    assert listed["snap1"]["Size"] == 1

    demo.ok("volume", "create", "--snapshot", "snap1", "--size", "2", "from-snap")
    from_snap = _status(demo, "from-snap", "available")
    assert (from_snap["size"], from_snap["snapshot_id"]) == (2, snapshot["id"])
    demo.ok("volume", "create", "--source", "origin", "clone")
    clone = _status(demo, "clone", "available")
    assert clone["source_volid"] == demo.json("volume", "show", "origin")["id"]
    demo.ok("volume", "set", "--bootable", "clone")
    assert demo.json("volume", "show", "clone")["bootable"] is True

    demo.ok("volume", "create", "--image", "novalite-tiny", "--size", "1", "bootvol")
    bootvol = _status(demo, "bootvol", "available")
    assert bootvol["bootable"] is True

    demo.ok("volume", "set", "--size", "2", "origin")
    wait_for(lambda: demo.json("volume", "show", "origin")["size"] == 2, timeout=60,
             interval=0.5, what="origin extended")
    smaller = demo.run("volume", "set", "--size", "1", "origin")
    assert smaller.returncode == 1 and "New size must be greater" in smaller.stderr  # the CLI's

    in_use = demo.run("volume", "delete", "origin")
    assert in_use.returncode == 1 and "have snapshots" in in_use.stderr
    demo.ok("volume", "snapshot", "delete", "snap1")
    wait_for(lambda: "snap1" not in {s["Name"] for s in demo.json("volume", "snapshot",
                                                                   "list")},
             timeout=60, interval=0.5, what="snap1 deleted")
    demo.ok("volume", "delete", "origin", "from-snap", "clone", "bootvol")


def test_a_volume_attached_to_a_server_and_detached_with_the_cli(cloud):
    demo = Cli(cloud.clouds_yaml, "novalite")
    server = demo.json("server", "create", "--image", "novalite-tiny", "--flavor",
                       "m1.tiny", "--wait", "vol-vm")
    volume = demo.json("volume", "create", "--size", "1", "attached")
    _status(demo, "attached", "available")

    demo.ok("server", "add", "volume", "vol-vm", "attached")
    in_use = _status(demo, "attached", "in-use")
    (attachment,) = in_use["attachments"]
    assert (attachment["server_id"], attachment["device"]) == (server["id"], "/dev/vdb")
    (listed,) = demo.json("server", "volume", "list", "vol-vm")
    assert (listed["Volume ID"], listed["Server ID"], listed["Device"]) == (
        volume["id"], server["id"], "/dev/vdb")
    attached = demo.json("server", "show", "vol-vm")["volumes_attached"]
    assert [v["id"] for v in attached] == [volume["id"]]
    # extended while attached (3.42): the server's compute is told
    demo.ok("--os-volume-api-version", "3.42", "volume", "set", "--size", "2", "attached")
    wait_for(lambda: (v := demo.json("volume", "show", "attached"))["size"] == 2
             and v["status"] == "in-use", timeout=60, interval=0.5, what="extended")
    wait_for(lambda: "extend_volume" in demo.ok("server", "event", "list", "vol-vm"),
             timeout=60, interval=0.5, what="the extend_volume action")

    demo.ok("server", "remove", "volume", "vol-vm", "attached")
    assert _status(demo, "attached", "available")["attachments"] == []
    assert demo.json("server", "show", "vol-vm")["volumes_attached"] == []
    demo.ok("server", "delete", "vol-vm")
    demo.ok("volume", "delete", "attached")


def test_a_multiattach_volume_on_two_servers_with_the_cli(cloud):
    demo = Cli(cloud.clouds_yaml, "novalite")
    admin = Cli(cloud.clouds_yaml, "novalite-admin")
    admin.ok("volume", "type", "create", "--property", 'multiattach=<is> True', "multi")
    made = demo.json("volume", "create", "--type", "multi", "--size", "1", "shared")
    assert made["multiattach"] is True
    _status(demo, "shared", "available")
    servers = [demo.json("server", "create", "--image", "novalite-tiny", "--flavor",
                         "m1.tiny", "--wait", name)["id"] for name in ("ma-1", "ma-2")]

    refused = demo.run("--os-compute-api-version", "2.59", "server", "add", "volume",
                       "ma-1", "shared")
    assert refused.returncode != 0
    assert "only supported starting with compute API version 2.60" in refused.stderr
    for server in ("ma-1", "ma-2"):
        demo.ok("--os-compute-api-version", "2.60", "server", "add", "volume", server,
                "shared")
        _status(demo, "shared", "in-use")
    shown = demo.json("volume", "show", "shared")
    assert sorted(a["server_id"] for a in shown["attachments"]) == sorted(servers)

    demo.ok("server", "remove", "volume", "ma-1", "shared")
    wait_for(lambda: [a["server_id"] for a in demo.json("volume", "show", "shared")[
        "attachments"]] == [servers[1]], timeout=60, interval=0.5, what="one left")
    assert demo.json("volume", "show", "shared")["status"] == "in-use"
    demo.ok("server", "remove", "volume", "ma-2", "shared")
    assert _status(demo, "shared", "available")["attachments"] == []
    demo.ok("server", "delete", "--wait", "ma-1", "ma-2")
    demo.ok("volume", "delete", "shared")


def test_servers_booted_from_volumes_with_the_cli(cloud):
    demo = Cli(cloud.clouds_yaml, "novalite")
    demo.json("volume", "create", "--image", "novalite-tiny", "--size", "1", "bootvol")
    _status(demo, "bootvol", "available")
    server = demo.boot("--volume", "bootvol", "--flavor", "m1.tiny", "bfv-vm")
    assert server["image"] in ("", "N/A (booted from volume)")
    root = _status(demo, "bootvol", "in-use")
    assert [(a["server_id"], a["device"]) for a in root["attachments"]] == [
        (server["id"], "/dev/vda")]
    # its snapshot: an image mapping a snapshot of the volume, which boots a copy
    demo.ok("server", "image", "create", "--name", "bfv-snap", "--wait", "bfv-vm")
    copy = demo.boot("--image", "bfv-snap", "--flavor", "m1.tiny", "bfv-copy")
    (copied,) = copy["volumes_attached"]
    assert _status(demo, copied["id"], "in-use")["snapshot_id"]
    demo.delete("bfv-vm", "bfv-copy")
    assert _status(demo, "bootvol", "available")["attachments"] == []
    # the boot volume back into an image (os-volume_upload_image)
    uploaded = demo.json("image", "create", "--volume", "bootvol", "--disk-format", "qcow2",
                         "from-bootvol")
    assert uploaded["image_name"] == "from-bootvol"
    image = wait_for(lambda: (i := demo.json("image", "show", "from-bootvol"))["status"]
                     == "active" and i, timeout=60, interval=0.5, what="the uploaded image")
    assert image["disk_format"] == "qcow2"
    demo.ok("image", "delete", "from-bootvol")

    made = demo.boot("--boot-from-volume", "1", "--image", "novalite-tiny", "--flavor",
                     "m1.tiny", "bfv-made")
    (attached,) = made["volumes_attached"]
    volume = _status(demo, attached["id"], "in-use")
    assert volume["volume_image_metadata"]["image_id"] == demo.json(
        "image", "show", "novalite-tiny")["id"]
    demo.delete("bfv-made")
    # `--boot-from-volume` asks for no delete_on_termination: the volume stays
    assert _status(demo, attached["id"], "available")["size"] == 1
    demo.ok("image", "delete", "bfv-snap")
    demo.ok("volume", "delete", attached["id"], copied["id"])
    for snapshot in demo.json("volume", "snapshot", "list"):
        demo.ok("volume", "snapshot", "delete", snapshot["ID"])
    wait_for(lambda: demo.json("volume", "snapshot", "list") == [], timeout=60,
             interval=0.5, what="the snapshots gone")
    demo.ok("volume", "delete", "bootvol")


def test_volumes_with_openstacksdk(cloud):
    config = OpenStackConfig(config_files=[str(cloud.clouds_yaml)])
    conn = connection.Connection(config=config.get_one(cloud="novalite"))
    volume = conn.block_storage.create_volume(size=1, name="sdk-vol")
    volume = conn.block_storage.wait_for_status(volume, "available", wait=60)
    assert volume.size == 1 and volume.volume_type == "__DEFAULT__"
    assert volume.id in {v.id for v in conn.block_storage.volumes()}
    conn.block_storage.delete_volume(volume)
    conn.block_storage.wait_for_delete(volume, wait=60)
