"""The issue's acceptance: the unmodified `openstack` CLI, with the clouds.yaml the
all-in-one writes, drives a server's whole life and keeps projects apart."""

from __future__ import annotations

from pathlib import Path

from tests.acceptance.cli import Cli
from tests.acceptance.credentials import clouds_yaml_with, public_key


def test_a_demo_user_runs_a_server_life_with_the_openstack_cli(cloud, tmp_path):
    demo = Cli(cloud.clouds_yaml, "novalite")
    admin = Cli(cloud.clouds_yaml, "novalite-admin")

    token = demo.json("token", "issue")
    assert token["id"] and token["project_id"] and token["user_id"]

    flavors = {f["Name"]: f for f in demo.json("flavor", "list")}
    assert flavors["m1.tiny"]["RAM"] == 512 and flavors["m1.tiny"]["Is Public"] is True

    disk = tmp_path / "disk.img"
    disk.write_bytes(b"\0" * 4096)
    image = demo.json("image", "create", "--file", str(disk), "--disk-format", "raw",
                      "--container-format", "bare", "accept-img")
    assert image["name"] == "accept-img" and image["status"] == "active"
    assert image["size"] == 4096
    assert {"ID": image["id"], "Name": "accept-img", "Status": "active"} in demo.json(
        "image", "list")

    key_file = tmp_path / "key.pub"
    key_file.write_text(public_key())
    keypair = demo.json("keypair", "create", "--public-key", str(key_file), "accept-key")
    assert keypair["name"] == "accept-key" and keypair["fingerprint"]

    server = demo.json("server", "create", "--image", "accept-img", "--flavor", "m1.tiny",
                       "--key-name", "accept-key", "--wait", "accept-vm")
    assert server["status"] == "ACTIVE" and server["key_name"] == "accept-key"
    listed = demo.json("server", "list")
    assert [(s["ID"], s["Name"], s["Status"], s["Image"], s["Flavor"]) for s in listed] == [
        (server["id"], "accept-vm", "ACTIVE", "accept-img", "m1.tiny")]
    shown = demo.json("server", "show", server["id"])
    assert shown["name"] == "accept-vm" and shown["flavor"]["name"] == "m1.tiny"

    for action, status in (("stop", "SHUTOFF"), ("start", "ACTIVE")):
        assert demo.ok("server", action, "accept-vm") == ""
        demo.wait_status(server["id"], status)
    assert demo.ok("server", "reboot", "--hard", "accept-vm") == ""
    demo.wait_status(server["id"], "ACTIVE")
    for action, status in (("pause", "PAUSED"), ("unpause", "ACTIVE"),
                           ("suspend", "SUSPENDED"), ("resume", "ACTIVE")):
        assert demo.ok("server", action, "accept-vm") == ""
        demo.wait_status(server["id"], status)
    console = demo.ok("console", "log", "show", "accept-vm")
    assert f"novalite fake guest {server['id']} created" in console
    assert "PM: suspend exit" in demo.ok("console", "log", "show", "--lines", "3", "accept-vm")

    hypervisors = admin.json("hypervisor", "list")
    assert len(hypervisors) == 2 and {h["State"] for h in hypervisors} == {"up"}
    zones = admin.json("availability", "zone", "list", "--compute")
    assert "nova" in {z["Zone Name"] for z in zones}
    limits = {item["Name"]: item["Value"]
              for item in demo.json("limits", "show", "--absolute")}
    assert limits["total_instances_used"] == 1 and limits["total_ram_used"] == 512
    assert limits["max_total_instances"] == 10

    other = _other_project_user(admin, cloud.clouds_yaml, tmp_path)
    assert other.json("server", "list") == []
    hidden = other.run("server", "show", server["id"])
    assert hidden.returncode == 1 and "No Server found" in hidden.stderr

    demo.ok("server", "delete", "--wait", "accept-vm")
    assert demo.json("server", "list") == []


def _other_project_user(admin: Cli, clouds_yaml: Path, tmp_path: Path) -> Cli:
    project = admin.json("project", "create", "accept-other")
    assert project["name"] == "accept-other" and project["enabled"] is True
    user = admin.json("user", "create", "--password", "s3cret", "--project",
                      "accept-other", "accept-user")
    assert user["name"] == "accept-user" and user["default_project_id"] == project["id"]
    admin.ok("role", "add", "--project", "accept-other", "--user", "accept-user", "member")
    copy = clouds_yaml_with(clouds_yaml, tmp_path / "clouds.yaml", "novalite-other",
                       "accept-user", "accept-other", "s3cret")
    return Cli(copy, "novalite-other")
