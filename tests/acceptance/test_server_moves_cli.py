"""Resize and cold migration (issue 18) with the unmodified `openstack` CLI against the
all-in-one with two fake hosts: resize, confirm and revert as a user, migrate and list
migrations as an admin."""

from __future__ import annotations

from tests.acceptance.cli import Cli
from tests.acceptance.conftest import all_in_one
from tests.waiting import wait_for


def _show(cli: Cli, server: str) -> dict:
    return cli.json("server", "show", server)


def test_a_user_resizes_then_confirms_or_reverts(cloud):
    demo = Cli(cloud.clouds_yaml, "novalite")
    demo.boot("--image", "novalite-tiny", "--flavor", "m1.tiny", "grow-vm")
    try:
        demo.ok("server", "resize", "--flavor", "m1.small", "grow-vm")
        demo.wait_status("grow-vm", "VERIFY_RESIZE")
        shown = _show(demo, "grow-vm")
        assert shown["status"] == "VERIFY_RESIZE"
        assert "m1.small" in str(shown["flavor"])
        demo.ok("server", "resize", "confirm", "grow-vm")
        demo.wait_status("grow-vm", "ACTIVE")
        assert "m1.small" in str(_show(demo, "grow-vm")["flavor"])

        demo.ok("server", "resize", "--flavor", "m1.medium", "grow-vm")
        demo.wait_status("grow-vm", "VERIFY_RESIZE")
        demo.ok("server", "resize", "revert", "grow-vm")
        demo.wait_status("grow-vm", "ACTIVE")
        assert "m1.small" in str(_show(demo, "grow-vm")["flavor"])
    finally:
        demo.delete("grow-vm")


def test_an_admin_migrates_a_server_and_lists_migrations(cloud):
    demo = Cli(cloud.clouds_yaml, "novalite")
    admin = Cli(cloud.clouds_yaml, "novalite-admin")
    server_id = demo.boot("--image", "novalite-tiny", "--flavor", "m1.tiny", "move-vm")["id"]
    try:
        source = _show(admin, server_id)["OS-EXT-SRV-ATTR:host"]
        admin.ok("server", "migrate", server_id)
        admin.wait_status(server_id, "VERIFY_RESIZE")
        shown = _show(admin, server_id)
        assert shown["status"] == "VERIFY_RESIZE"
        assert shown["OS-EXT-SRV-ATTR:host"] != source
        admin.ok("server", "resize", "confirm", server_id)
        admin.wait_status(server_id, "ACTIVE")
        listed = admin.json("server", "migration", "list", "--server", server_id)
        assert [(m["Server UUID"], m["Status"], m["Source Compute"]) for m in listed] == \
            [(server_id, "confirmed", source)]
        paged = admin.json("--os-compute-api-version", "2.59", "server", "migration", "list",
                           "--type", "cold-migration", "--limit", "1")
        assert [(m["Server UUID"], m["Type"]) for m in paged] == [(server_id, "migration")]
        assert paged[0]["UUID"]
        here = _show(admin, server_id)["OS-EXT-SRV-ATTR:host"]
        admin.ok("server", "migrate", "--live-migration", server_id)
        admin.wait_status(server_id, "ACTIVE")
        live = _show(admin, server_id)
        assert (live["status"], live["OS-EXT-SRV-ATTR:host"] != here) == ("ACTIVE", True)
        kinds = admin.json("--os-compute-api-version", "2.59", "server", "migration", "list",
                           "--server", server_id)
        assert sorted(m["Type"] for m in kinds) == ["live-migration", "migration"]
        failed = _show(admin, server_id)["OS-EXT-SRV-ATTR:host"]
        admin.ok("--os-compute-api-version", "2.11", "compute", "service", "set", "--down",
                 failed, "novalite-compute")
        try:
            admin.ok("--os-compute-api-version", "2.29", "server", "evacuate", server_id)
            admin.wait_status(server_id, "ACTIVE")
        finally:  # the package's other tests share these hosts
            admin.ok("--os-compute-api-version", "2.11", "compute", "service", "set",
                     "--up", failed, "novalite-compute")
        evacuated = _show(admin, server_id)
        assert (evacuated["status"], evacuated["OS-EXT-SRV-ATTR:host"] != failed) == (
            "ACTIVE", True)
    finally:
        demo.delete(server_id)


def test_an_admin_forces_and_aborts_live_migrations(tmp_path):
    """A cloud of its own whose simulated copies run until an admin ends them. (Not
    `server migration show`: this client swaps its server and migration ids in the URL.)"""
    slow = tmp_path / "slow-copies.conf"
    slow.write_text("[fake_driver]\nlive_migration_seconds = 600\n")
    state = tmp_path / "state"
    state.mkdir()
    with all_in_one(state, "--hosts", "2", "--config-file", str(slow)) as cloud:
        demo = Cli(cloud.clouds_yaml, "novalite")
        admin = Cli(cloud.clouds_yaml, "novalite-admin")
        v = ("--os-compute-api-version", "2.80")
        server_id = demo.boot("--image", "novalite-tiny", "--flavor", "m1.tiny",
                              "live-vm")["id"]

        def running() -> str:
            admin.ok("server", "migrate", "--live-migration", server_id)
            return wait_for(lambda: next(
                (str(m["Id"]) for m in admin.json(*v, "server", "migration", "list",
                                                  "--server", server_id)
                 if m["Status"] == "running"), None),
                timeout=60, interval=0.5, what="a running live migration")

        source = _show(admin, server_id)["OS-EXT-SRV-ATTR:host"]
        copying = running()
        admin.ok(*v, "server", "migration", "abort", server_id, copying)
        wait_for(lambda: _show(admin, server_id)["OS-EXT-STS:task_state"] is None,
                 timeout=60, interval=0.5, what="the aborted migration's end")
        assert _show(admin, server_id)["OS-EXT-SRV-ATTR:host"] == source

        forced = running()
        admin.ok(*v, "server", "migration", "force", "complete", server_id, forced)
        wait_for(lambda: _show(admin, server_id)["OS-EXT-SRV-ATTR:host"] != source,
                 timeout=60, interval=0.5, what="the forced migration's end")
        statuses = {str(m["Id"]): m["Status"] for m in admin.json(
            *v, "server", "migration", "list", "--server", server_id)}
        assert (statuses[copying], statuses[forced]) == ("cancelled", "completed")
        demo.delete(server_id)
