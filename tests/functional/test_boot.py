"""Boot and delete through the HTTP API of the all-in-one: api -> conductor -> scheduler ->
compute -> fake driver, with every state saved in SQLite."""

from __future__ import annotations

import concurrent.futures
import datetime

import httpx
import pytest

from novalite.clients import placement as placement_client
from novalite.context import get_admin_context
from novalite.db.api import actions, compute_nodes, stuck_builds
from novalite.timeutils import utcnow


def _used(host: str) -> tuple[int, int]:
    node = next(n for n in compute_nodes.compute_node_get_all() if n.host == host)
    return node.memory_mb_used, node.running_vms


def test_boot_goes_active_and_delete_frees_the_host(cloud):
    server_id = cloud.boot("vm1")
    server = cloud.wait_status(server_id, "ACTIVE")
    assert server["OS-EXT-STS:vm_state"] == "active"
    assert server["OS-EXT-STS:power_state"] == 1
    assert server["OS-SRV-USG:launched_at"]
    host = server["OS-EXT-SRV-ATTR:host"]
    assert _used(host) == (512, 1)

    assert cloud.api.delete(f"/servers/{server_id}").status_code == 204
    cloud.wait_gone(server_id)
    cloud.wait(lambda: _used(host) == (0, 0))
    names = [a["action"] for a in actions.actions_get(server_id)]
    assert names == ["create", "delete"]


def test_build_records_its_steps_as_action_events(cloud):
    server_id = cloud.boot()
    cloud.wait_status(server_id, "ACTIVE")
    # the compute closes its event just after the server turns ACTIVE
    create = cloud.wait(lambda: (a := actions.actions_get(server_id)[0])["finish_time"] and
                        all(e["result"] for e in a["events"]) and a)
    events = {e["event"]: e["result"] for e in create["events"]}
    assert events == {"conductor_schedule_and_build_instances": "Success",
                      "compute__do_build_and_run_instance": "Success"}
    schedule = next(e for e in create["events"]
                    if e["event"] == "conductor_schedule_and_build_instances")
    # why this host: the funnel, then the best hosts with each weigher's share
    assert schedule["details"].startswith(
        "2 hosts: no filter removed any. Placement offered 2 hosts for limit=1000, "
        "resources=DISK_GB:1,MEMORY_MB:512,VCPU:1, root_required=!COMPUTE_STATUS_DISABLED. "
        "Top weights: ")
    assert "RAMWeigher 1.00" in schedule["details"]


def test_no_valid_host_ends_in_error_with_a_fault(cloud):
    server_id = cloud.boot("huge", flavor="5", min_count=40, max_count=40)
    server = cloud.wait_status(server_id, "ERROR")
    assert server["fault"]["code"] == 500
    assert server["fault"]["message"].startswith("No valid host was found.")
    # placement offered both hosts; once full, placement refused their claims
    assert "placement claim removed 2 (" in server["fault"]["message"]
    assert server["OS-EXT-STS:task_state"] is None


def test_concurrent_boots_spread_and_never_overcommit(cloud_factory):
    cloud = cloud_factory(hosts=2, memory_mb=2560)  # 2048 usable each: 4 m1.tiny per host
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        ids = list(pool.map(lambda i: cloud.boot(f"vm{i}"), range(10)))
    final = [cloud.wait_status(i, "ACTIVE", "ERROR") for i in ids]
    active = [s for s in final if s["status"] == "ACTIVE"]
    assert len(active) == 8
    for host in ("compute1", "compute2"):
        assert _used(host) == (2048, 4)
    # losers of the race for the last slots are rescheduled, then buried with the reason
    assert all(s["fault"]["message"].startswith(("No valid host", "Exceeded maximum number"))
               for s in final if s["status"] == "ERROR")


def test_failed_spawn_is_rescheduled_onto_an_alternate(cloud):
    first = cloud.compute("compute1")
    boom = RuntimeError("hypervisor exploded")

    def fail(*args, **kwargs):
        raise boom

    first.driver.spawn = fail  # compute2 keeps working
    server_ids = [cloud.boot(f"vm{i}") for i in range(3)]
    for server_id in server_ids:
        server = cloud.wait_status(server_id, "ACTIVE", "ERROR")
        assert server["status"] == "ACTIVE"
        assert server["OS-EXT-SRV-ATTR:host"] == "compute2"
    assert _used("compute1") == (0, 0)


def test_when_every_host_fails_the_fault_says_retries_were_exhausted(cloud):
    def fail(*args, **kwargs):
        raise RuntimeError("hypervisor exploded")

    for host in ("compute1", "compute2"):
        cloud.compute(host).driver.spawn = fail
    server = cloud.wait_status(cloud.boot(), "ERROR")
    assert server["fault"]["message"].startswith("Exceeded maximum number of retries.")
    assert _used("compute1") == (0, 0) and _used("compute2") == (0, 0)


@pytest.mark.parametrize("when", ["before the spawn", "during the spawn"])
def test_a_build_the_watchdog_ended_meanwhile_stays_ended(cloud, when):
    """A build that stalled (its host waited on a busy conductor) is ended by the build
    watchdog: ERROR on no host, its claim freed. The compute, going on afterwards, must
    not bring it back ACTIVE without a claim: it drops the build and what it made."""
    ctx = get_admin_context()

    def watchdog(uuid: str) -> None:
        assert stuck_builds.bury_stuck_builds(utcnow() + datetime.timedelta(hours=1),
                                              "set to error by the build watchdog") == [uuid]
        placement_client.free_allocations(ctx, uuid)

    for host in ("compute1", "compute2"):
        manager = cloud.compute(host)
        if when == "before the spawn":
            claim = manager.rt.instance_claim

            def stalled(ctx_, instance, node, claim=claim):
                watchdog(instance.uuid)
                return claim(ctx_, instance, node)
            manager.rt.instance_claim = stalled
        else:
            spawn = manager.driver.spawn

            def slow(ctx_, instance, *args, spawn=spawn, **kwargs):
                spawn(ctx_, instance, *args, **kwargs)
                watchdog(instance.uuid)
            manager.driver.spawn = slow
    server_id = cloud.boot()
    server = cloud.wait_status(server_id, "ERROR")
    cloud.settle()
    server = cloud.server(server_id)
    assert (server["status"], server["OS-EXT-SRV-ATTR:host"]) == ("ERROR", None)
    assert "build watchdog" in server["fault"]["message"]
    held = httpx.get(f"{cloud.base_url}/placement/allocations/{server_id}",
                     headers={"OpenStack-API-Version": "placement 1.28"})
    assert held.json()["allocations"] == {}
    assert all(server_id not in cloud.compute(h).driver.list_instances()
               for h in ("compute1", "compute2"))
    assert _used("compute1") == (0, 0) and _used("compute2") == (0, 0)


def test_delete_during_the_build_wins_and_frees_resources(cloud_factory):
    cloud = cloud_factory(hosts=1, spawn_seconds=0.5)
    server_id = cloud.boot()
    cloud.wait(lambda: cloud.server(server_id)["OS-EXT-STS:task_state"] == "spawning")
    assert cloud.api.delete(f"/servers/{server_id}").status_code == 204
    cloud.wait_gone(server_id)
    cloud.wait(lambda: _used("compute1") == (0, 0), timeout=5)
    assert cloud.compute("compute1").driver.list_instances() == []


def test_delete_while_scheduling_is_a_local_delete(cloud):
    server_id = cloud.boot("doomed", flavor="5", min_count=40, max_count=40)
    assert cloud.api.delete(f"/servers/{server_id}").status_code == 204
    cloud.wait_gone(server_id)


def test_multi_create_names_and_lists(cloud):
    first = cloud.boot("batch", min_count=3, max_count=3)
    cloud.wait_status(first, "ACTIVE")
    listed = cloud.api.get("/servers", params={"name": "^batch-"}).json()["servers"]
    assert sorted(s["name"] for s in listed) == ["batch-1", "batch-2", "batch-3"]
    detail = cloud.api.get("/servers/detail").json()["servers"]
    assert len(detail) == 3 and all("status" in s for s in detail)


def test_list_filters_by_status(cloud):
    server_id = cloud.boot()
    cloud.wait_status(server_id, "ACTIVE")
    listed = lambda status: [s["id"] for s in  # noqa: E731
                             cloud.api.get("/servers", params={"status": status}).json()["servers"]]
    assert listed("ACTIVE") == [server_id] and listed("active") == [server_id]
    assert listed("ERROR") == [] and listed("NO-SUCH-STATUS") == []



def test_builds_under_way_when_the_cloud_stops_finish_before_its_http_server_stops(
        cloud_factory):
    """The builds reach placement, images and ports over the all-in-one's own HTTP server:
    a stop lets them end (ACTIVE) before it closes that server (the fixture closes it)."""
    from novalite.db.api import instances

    cloud = cloud_factory()
    server_ids = [cloud.boot(f"vm{i}") for i in range(2)]
    seen = []
    cloud.aio.stop(stop_http=lambda: seen.append(
        [instances.instance_get(i).vm_state for i in server_ids]))
    assert seen == [["active", "active"]]
