"""The rest of the compute API (issue 16) with the unmodified `openstack` CLI and
openstacksdk: compute services, hosts, hypervisor uptime, extensions, quotas, server
properties, passwords, tags and events, the server list's pages, remote consoles, and server shares
in a cloud without Manila."""

from __future__ import annotations

import pytest
from openstack import connection, exceptions
from openstack.config import OpenStackConfig
from websockets.sync.client import connect

from tests.acceptance.cli import Cli
from tests.acceptance.conftest import all_in_one
from tests.console_urls import websocket_url
from tests.waiting import wait_for

COMPUTE = "novalite-compute"


def test_an_admin_disables_forces_down_and_enables_a_compute_service(cloud):
    admin = Cli(cloud.clouds_yaml, "novalite-admin")
    services = admin.json("compute", "service", "list", "--service", COMPUTE)
    assert sorted(s["Host"] for s in services) == ["compute1", "compute2"]
    assert {(s["Status"], s["State"]) for s in services} == {("enabled", "up")}
    admin.ok("compute", "service", "set", "--disable", "--disable-reason", "maintenance",
             "compute1", COMPUTE)
    admin.ok("--os-compute-api-version", "2.11", "compute", "service", "set", "--down",
             "compute1", COMPUTE)
    shown = admin.json("compute", "service", "list", "--long", "--host", "compute1")[0]
    assert (shown["Status"], shown["State"], shown["Disabled Reason"],
            shown["Forced Down"]) == ("disabled", "down", "maintenance", True)
    admin.ok("--os-compute-api-version", "2.53", "compute", "service", "set", "--enable",
             "--up", "compute1", COMPUTE)
    shown = admin.json("compute", "service", "list", "--long", "--host", "compute1")[0]
    assert (shown["Status"], shown["State"], shown["Forced Down"]) == ("enabled", "up",
                                                                       False)


def test_an_admin_reads_hosts_hypervisor_uptime_and_compute_extensions(cloud):
    admin = Cli(cloud.clouds_yaml, "novalite-admin")
    hosts = admin.json("host", "list", "--zone", "nova")  # os-hosts, before 2.43
    assert sorted((h["Host Name"], h["Service"]) for h in hosts) == [
        ("compute1", "compute"), ("compute2", "compute")]
    total = next(r for r in admin.json("host", "show", "compute1")
                 if r["Project"] == "(total)")
    assert total["CPU"] > 0 and total["Memory MB"] > 0
    for version in ("2.1", "2.88"):  # /uptime, then uptime in the hypervisor itself
        shown = admin.json("--os-compute-api-version", version, "hypervisor", "show",
                           "compute1")
        assert (shown["uptime"], shown["users"]) != ("", ""), shown
        assert shown["load_average"] == "0.00, 0.00, 0.00"
    aliases = {e["Alias"] for e in admin.json("extension", "list", "--compute")}
    assert {"OS-DCF", "OS-EXT-AZ", "os-hypervisors"} <= aliases


def _limits(cli: Cli, *args: str) -> dict:
    return {r["Resource"]: r["Limit"] for r in cli.json("quota", "show", *args)}


def test_an_admin_sets_project_and_default_quotas(cloud):
    admin = Cli(cloud.clouds_yaml, "novalite-admin")
    admin.ok("quota", "set", "--instances", "5", "--cores", "8", "--ram", "4096", "demo")
    try:
        limits = _limits(admin, "--compute", "demo")
        assert (limits["instances"], limits["cores"], limits["ram"]) == (5, 8, 4096)
        usage = admin.json("quota", "show", "--usage", "--compute", "demo")
        assert {"Resource": "instances", "Limit": 5, "In Use": 0, "Reserved": 0} in usage
        admin.ok("quota", "set", "--class", "--key-pairs", "50", "default")
        assert _limits(admin, "--default", "--compute")["key-pairs"] == 50
        assert _limits(admin, "--compute", "demo")["key-pairs"] == 50
    finally:  # the other tests of this package share the cloud: give back Nova's defaults
        admin.ok("quota", "set", "--class", "--key-pairs", "100", "default")
        admin.ok("quota", "set", "--instances", "10", "--cores", "20", "--ram", "51200",
                 "demo")


def test_a_user_names_describes_tags_and_reads_a_servers_history(cloud):
    demo = Cli(cloud.clouds_yaml, "novalite")
    server = demo.boot("--image", "novalite-tiny", "--flavor", "m1.tiny", "props-vm")
    demo.ok("server", "set", "--name", "props-vm2", "--property", "a=1", "--property",
            "b=2", "--description", "the second", "props-vm")
    demo.ok("server", "unset", "--property", "a", "props-vm2")
    demo.ok("server", "set", "--tag", "blue", "--tag", "red", "props-vm2")
    demo.ok("server", "unset", "--tag", "blue", "props-vm2")
    shown = demo.json("server", "show", server["id"])
    assert (shown["name"], shown["description"], shown["properties"], shown["tags"]) == (
        "props-vm2", "the second", {"b": "2"}, ["red"])
    assert [s["Name"] for s in demo.json("server", "list", "--tags", "red")] == [
        "props-vm2"]
    assert demo.json("server", "list", "--not-tags", "red") == []
    events = demo.json("server", "event", "list", server["id"])
    assert [e["Action"] for e in events] == ["create"]
    create = demo.json("server", "event", "show", server["id"], events[0]["Request ID"])
    assert create["action"] == "create" and create["events"]
    demo.ok("--os-compute-api-version", "2.73", "server", "lock", "--reason", "backup",
            server["id"])
    locked = demo.json("--os-compute-api-version", "2.73", "server", "show", server["id"])
    assert (locked["locked"], locked["locked_reason"]) == (True, "backup")
    refused = demo.run("server", "stop", server["id"])
    assert refused.returncode != 0 and "is locked" in refused.stderr
    demo.ok("server", "unlock", server["id"])
    demo.ok("server", "rebuild", "--image", "novalite-tiny", "--name", "props-vm3",
            server["id"])
    demo.wait_status(server["id"], "ACTIVE")
    rebuilt = demo.json("server", "show", server["id"])
    assert (rebuilt["name"], rebuilt["status"]) == ("props-vm3", "ACTIVE")
    assert [e["Action"] for e in demo.json("server", "event", "list", server["id"])][0] \
        == "rebuild"
    demo.ok("server", "rescue", "--password", "fix-me", server["id"])
    demo.wait_status(server["id"], "RESCUE")
    demo.ok("server", "unrescue", server["id"])
    demo.wait_status(server["id"], "ACTIVE")
    demo.ok("server", "image", "create", "--name", "props-snap", server["id"])
    wait_for(lambda: demo.sdk.image.find_image("props-snap").status == "active",
             timeout=60, interval=0.2, what="the snapshot")
    snapshot = demo.json("image", "show", "props-snap")
    assert (snapshot["status"], snapshot["visibility"]) == ("active", "private")
    demo.ok("image", "delete", "props-snap")
    for name in ("props-bk1", "props-bk2"):
        demo.ok("server", "backup", "create", "--name", name, "--type", "daily", "--rotate",
                "1", server["id"])
        wait_for(lambda: demo.json("server", "show", server["id"])[
            "OS-EXT-STS:task_state"] is None, timeout=60, interval=0.5, what="idle")
    wait_for(lambda: [i["Name"] for i in demo.json(
        "image", "list", "--property", f"instance_uuid={server['id']}")] == ["props-bk2"],
        timeout=60, interval=0.5, what="the rotation")
    demo.ok("image", "delete", "props-bk2")
    demo.ok("server", "shelve", server["id"])
    demo.wait_status(server["id"], "SHELVED_OFFLOADED")
    demo.ok("server", "unshelve", server["id"])
    demo.wait_status(server["id"], "ACTIVE")
    admin = Cli(cloud.clouds_yaml, "novalite-admin")
    diagnostics = admin.json("--os-compute-api-version", "2.48", "server", "show",
                             "--diagnostics", server["id"])
    assert diagnostics["state"] == "running"
    demo.ok("--os-compute-api-version", "2.17", "server", "dump", "create", server["id"])
    admin.wait_status(server["id"], "ACTIVE")
    assert "NMI received" in demo.ok("console", "log", "show", server["id"])
    demo.ok("server", "set", "--password", "n3w-Pass", server["id"])
    assert "password for root changed" in demo.ok("console", "log", "show", server["id"])
    demo.ok("server", "set", "--no-password", server["id"])
    admin.ok("server", "set", "--state", "error", "--auto-approve", server["id"])
    assert demo.json("server", "show", server["id"])["status"] == "ERROR"
    admin.ok("server", "set", "--state", "active", "--auto-approve", server["id"])
    assert demo.json("server", "show", server["id"])["status"] == "ACTIVE"
    assert [e["Action"] for e in demo.json("server", "event", "list", server["id"])][:3] \
        == ["resetState", "resetState", "changePassword"]
    demo.delete(server["id"])


def test_openstacksdk_pages_through_servers(cloud):
    config = OpenStackConfig(config_files=[str(cloud.clouds_yaml)], load_envvars=False)
    demo = connection.Connection(config=config.get_one(cloud="novalite"))
    flavor = demo.compute.find_flavor("m1.tiny", ignore_missing=False)
    image = demo.image.find_image("novalite-tiny", ignore_missing=False)
    created = [demo.compute.create_server(name=f"page-{i}", image_id=image.id,
                                          flavor_id=flavor.id, networks="none")
               for i in range(5)]
    try:
        listed = [s.id for s in demo.compute.servers(limit=2)]
        assert sorted(listed) == sorted(s.id for s in created)
        proxied = {i.name: i for i in demo.compute.images()}  # Nova's /images proxy
        assert proxied["novalite-tiny"].id == image.id
    finally:
        for server in created:
            demo.compute.delete_server(server)
        for server in created:
            demo.compute.wait_for_delete(server, interval=0.2, wait=60)


def test_usage_list_and_show(cloud):
    demo = Cli(cloud.clouds_yaml, "novalite")
    admin = Cli(cloud.clouds_yaml, "novalite-admin")
    server = demo.boot("--image", "novalite-tiny", "--flavor", "m1.tiny", "usage-vm")
    project = demo.json("token", "issue")["project_id"]
    rows = admin.json("usage", "list")
    mine = [r for r in rows if r["Project"] in (project, "demo")]
    # usage counts every server that lived in the period: earlier tests' deleted ones too
    used = [s["instance_id"] for s in mine[0]["Servers"]]
    assert server["id"] in used
    assert mine[0]["CPU Hours"] > 0
    shown = demo.json("usage", "show")
    count = shown["Servers"]
    assert (len(count) if isinstance(count, list) else int(count)) == len(used)
    demo.delete(server["id"])


def _cloud_of_its_own(tmp_path, config: str):
    """A one-host all-in-one started with `config` as its configuration file."""
    conf = tmp_path / "own.conf"
    conf.write_text(config)
    state = tmp_path / "state"
    state.mkdir()
    return all_in_one(state, "--hosts", "1", "--config-file", str(conf))


def test_a_user_restores_and_force_deletes_soft_deleted_servers(tmp_path):
    """A cloud of its own whose deletes are deferred an hour."""
    with _cloud_of_its_own(tmp_path, "[DEFAULT]\nreclaim_instance_interval = 3600\n") as cloud:
        demo = Cli(cloud.clouds_yaml, "novalite")
        server = demo.boot("--image", "novalite-tiny", "--flavor", "m1.tiny", "undo-vm")
        demo.ok("server", "delete", server["id"])
        demo.wait_status(server["id"], "SOFT_DELETED")
        assert demo.json("server", "list") == []
        demo.ok("server", "restore", server["id"])
        demo.wait_status(server["id"], "ACTIVE")
        demo.ok("server", "delete", server["id"])
        demo.wait_status(server["id"], "SOFT_DELETED")
        demo.delete(server["id"], force=True)
        assert demo.run("server", "show", server["id"]).returncode != 0


def test_an_admin_has_an_aggregates_hosts_cache_an_image(cloud):
    admin = Cli(cloud.clouds_yaml, "novalite-admin")
    admin.ok("aggregate", "create", "precached")
    admin.ok("aggregate", "add", "host", "precached", "compute1")
    admin.ok("--os-compute-api-version", "2.81", "aggregate", "cache", "image", "precached",
             "novalite-tiny")
    log = cloud.state_dir / "all-in-one.log"
    wait_for(lambda: "Image pre-cache operation for image(s)" in log.read_text())
    assert "; 1 cached, 0 existing, 0 errors, 0 unsupported, 0 skipped (down) hosts" \
        in log.read_text()


def _opened_console(url: str, greeting: bytes) -> None:
    """The URL the CLI printed opens the console through the proxy (noVNC's websocket is
    in the page's `path` parameter)."""
    with connect(websocket_url(url)) as ws:
        assert ws.recv(timeout=10).startswith(greeting)


def test_a_user_opens_a_servers_vnc_and_serial_consoles(tmp_path):
    """A cloud of its own with serial consoles enabled (Nova's default is off)."""
    with _cloud_of_its_own(tmp_path, "[serial_console]\nenabled = true\n") as cloud:
        demo = Cli(cloud.clouds_yaml, "novalite")
        server = demo.boot("--image", "novalite-tiny", "--flavor", "m1.tiny", "console-vm")
        novnc = demo.json("console", "url", "show", "--novnc", server["id"])
        assert novnc["type"] == "novnc"
        _opened_console(novnc["url"], b"RFB 003.008\n")
        shown = demo.json("console", "url", "show", "--serial", server["id"])
        assert (shown["type"], shown["protocol"]) == ("serial", "serial")
        _opened_console(shown["url"], b"")
        refused = demo.run("console", "url", "show", "--spice", server["id"])
        assert "Unavailable console type spice-html5." in refused.stderr


def test_a_user_lists_no_shares_and_cannot_attach_one_without_manila(cloud):
    """`server share list` asks only the compute API; `server add share` first looks the
    share up in Manila, which the catalog lacks, so the SDK is the way to the API's own
    refusals."""
    demo = Cli(cloud.clouds_yaml, "novalite")
    server = demo.boot("--image", "novalite-tiny", "--flavor", "m1.tiny", "share-vm")
    assert demo.json("--os-compute-api-version", "2.97", "server", "share", "list",
                     server["id"]) == []
    refused = demo.run("--os-compute-api-version", "2.97", "server", "add", "share",
                       server["id"], "data")
    assert refused.returncode != 0 and "shared-file-system" in refused.stderr
    share_id = "e8debdc0-447a-4376-a10a-4cd9122d7986"
    demo.ok("server", "stop", server["id"])
    demo.wait_status(server["id"], "SHUTOFF")
    with pytest.raises(exceptions.ConflictException, match="not configured correctly"):
        demo.sdk.compute.create_share_attachment(server["id"], share_id)
    with pytest.raises(exceptions.NotFoundException, match=f"Share {share_id} could not"):
        demo.sdk.compute.get_share_attachment(server["id"], share_id)
    demo.delete(server["id"])
