"""A guest that changes by itself and a compute service that restarts: the lifecycle
event of a guest that died, and what the compute does on start about instances it left
mid-action (Nova's handle_lifecycle_event and _init_instance)."""

from __future__ import annotations

import threading

import pytest

from novalite.cmd import manage_placement
from novalite.conductor.rpcapi import ConductorAPI
from novalite.db.api import instances
from novalite.service.base import start_together
from tests.functional.test_server_actions_api import _act, _boot, _events, _settled


@pytest.fixture
def cloud(cloud_factory):
    return cloud_factory(hosts=1)


def _states(server: dict) -> tuple:
    return (server["status"], server["OS-EXT-STS:vm_state"], server["OS-EXT-STS:power_state"],
            server["OS-EXT-STS:task_state"])


def test_a_guest_that_dies_is_stopped_through_the_stop_path(cloud):
    server_id = _boot(cloud)
    cloud.compute("compute1").driver.crash(server_id)
    server = _settled(cloud, server_id, "SHUTOFF")
    assert _states(server) == ("SHUTOFF", "stopped", 4, None)
    assert cloud.wait(_events(server_id, "stop")) == {"compute_stop_instance": "Success"}
    # and it can be started again
    assert _act(cloud, server_id, {"os-start": None}).status_code == 202
    assert _states(_settled(cloud, server_id, "ACTIVE")) == ("ACTIVE", "active", 1, None)


def test_a_paused_guest_that_dies_is_stopped_too(cloud):
    server_id = _boot(cloud)
    _act(cloud, server_id, {"pause": None})
    _settled(cloud, server_id, "PAUSED")
    cloud.compute("compute1").driver.crash(server_id)
    assert _states(_settled(cloud, server_id, "SHUTOFF")) == ("SHUTOFF", "stopped", 4, None)


def test_an_event_for_a_deleted_instance_is_ignored(cloud):
    server_id = _boot(cloud)
    manager = cloud.compute("compute1")
    instance = instances.instance_get(server_id)
    assert cloud.api.delete(f"/servers/{server_id}").status_code == 204
    cloud.wait_gone(server_id)
    manager.driver.spawn(None, instance, None)  # a guest the database no longer knows
    manager.driver.crash(server_id)
    manager._lifecycle_events.submit(lambda: None).result(timeout=10)  # handled
    assert manager.driver.get_info(instance).state == 4


def _restart(cloud, server_id, **values):
    """The compute died with the instance in `values`' states and starts again."""
    instances.instance_update(server_id, values)
    cloud.compute("compute1").init_host()
    return cloud.server(server_id)


def test_a_build_interrupted_by_a_restart_is_an_error(cloud):
    server_id = _boot(cloud)
    server = _restart(cloud, server_id, vm_state="building", task_state="spawning")
    assert (server["status"], server["OS-EXT-STS:task_state"]) == ("ERROR", None)
    assert "interrupted by a restart of compute compute1" in server["fault"]["message"]
    # its allocation is freed, so it is on no host (else an audit finds it holding none)
    assert server["OS-EXT-SRV-ATTR:host"] is None
    assert manage_placement.audit(heal=False) == 0


@pytest.mark.parametrize(("values", "expected"), [
    ({"task_state": "powering-off"}, ("SHUTOFF", "stopped", 4, None)),
    ({"task_state": "rebooting"}, ("ACTIVE", "active", 1, None)),
    ({"task_state": "reboot_started_hard", "vm_state": "stopped"},
     ("ACTIVE", "active", 1, None)),
    ({"task_state": "pausing"}, ("ACTIVE", "active", 1, None)),
])
def test_an_interrupted_action_on_a_running_guest_is_finished(cloud, values, expected):
    server_id = _boot(cloud)
    _restart(cloud, server_id, **values)
    assert _states(_settled(cloud, server_id, expected[0])) == expected
    if values["task_state"] == "powering-off":  # an action run again is on record
        assert cloud.wait(_events(server_id, "stop")) == {"compute_stop_instance": "Success"}


def test_an_interrupted_start_and_unpause_take_the_hypervisors_word(cloud):
    server_id = _boot(cloud)
    _act(cloud, server_id, {"os-stop": None})
    _settled(cloud, server_id, "SHUTOFF")
    server = _restart(cloud, server_id, task_state="powering-on")
    assert _states(server) == ("ACTIVE", "active", 1, None)

    _act(cloud, server_id, {"pause": None})
    _settled(cloud, server_id, "PAUSED")
    server = _restart(cloud, server_id, task_state="unpausing")
    assert _states(server) == ("PAUSED", "paused", 3, None)

    cloud.compute("compute1").driver.unpause(instances.instance_get(server_id))
    server = _restart(cloud, server_id, task_state="unpausing")
    assert _states(server) == ("ACTIVE", "active", 1, None)


def test_an_interrupted_reboot_of_a_dead_guest_is_run_again_hard(cloud):
    server_id = _boot(cloud)
    manager = cloud.compute("compute1")
    manager.driver.destroy(None, instances.instance_get(server_id))
    server = _restart(cloud, server_id, task_state="reboot_started")
    assert _states(server) == ("ACTIVE", "active", 1, None)
    assert cloud.wait(_events(server_id, "reboot")) == {"compute_reboot_instance": "Success"}


def test_an_interrupted_delete_is_finished(cloud):
    server_id = _boot(cloud)
    instances.instance_update(server_id, {"task_state": "deleting"})
    cloud.compute("compute1").init_host()
    cloud.wait_gone(server_id)
    assert cloud.compute("compute1").driver.list_instances() == []


def test_guests_lost_with_the_host_come_back_only_if_configured(cloud, conf):
    ids = [_boot(cloud, "vm1"), _boot(cloud, "vm2")]
    manager = cloud.compute("compute1")
    for server_id in ids:  # the host rebooted: the guests are gone
        manager.driver.destroy(None, instances.instance_get(server_id))
    manager.init_host()
    assert [cloud.server(s)["OS-EXT-STS:power_state"] for s in ids] == [1, 1]
    assert manager.driver.list_instances() == []

    conf.set_override("resume_guests_state_on_host_boot", True)
    broken = instances.instance_get(ids[1])
    resume = manager.driver.resume_state_on_host_boot

    def fails_for_one(ctx, instance):
        if instance.uuid == broken.uuid:
            raise RuntimeError("its disk is gone")
        resume(ctx, instance)
    manager.driver.resume_state_on_host_boot = fails_for_one
    manager.init_host()
    assert _states(cloud.server(ids[0])) == ("ACTIVE", "active", 1, None)
    assert manager.driver.list_instances() == [ids[0]]
    assert cloud.server(ids[1])["status"] == "ERROR"  # and the other was still recovered


def test_computes_started_together_recover_their_instances_and_leave_idle_hosts_unread(
        cloud_factory, monkeypatch):
    """The hosts of one process start together: one read finds which hold instances or
    moves; those recover as alone, the others read nothing more of their own."""
    cloud = cloud_factory(hosts=3)
    server_id = _boot(cloud)
    host = cloud.server(server_id)["OS-EXT-SRV-ATTR:host"]
    computes = [s for s in cloud.aio.services if s.binary == "novalite-compute"]
    for svc in computes:
        svc.stop()
    instances.instance_update(server_id, {"task_state": "powering-off"})
    asked = []
    for method in ("instance_get_all_by_host", "migration_get_in_progress_by_host"):
        real = getattr(ConductorAPI, method)
        monkeypatch.setattr(ConductorAPI, method, lambda self, ctx, h, real=real, m=method: (
            threading.current_thread() is threading.main_thread() and asked.append((m, h)),
            real(self, ctx, h))[1])
    start_together(computes)
    assert _states(_settled(cloud, server_id, "SHUTOFF")) == ("SHUTOFF", "stopped", 4, None)
    # the host holding the server reads again only for its first resource update
    assert sorted(asked) == [("instance_get_all_by_host", host),
                             ("migration_get_in_progress_by_host", host)]


def test_hosts_started_together_write_their_nodes_in_one_call(cloud_factory, monkeypatch):
    calls = []
    for method in ("compute_node_save", "compute_node_save_many"):
        real = getattr(ConductorAPI, method)
        monkeypatch.setattr(ConductorAPI, method, lambda self, ctx, *args, real=real,
                            m=method: (calls.append(m), real(self, ctx, *args))[1])
    cloud = cloud_factory(hosts=3)
    assert calls == ["compute_node_save_many"]
    hypervisors = cloud.api.get("/os-hypervisors").json()["hypervisors"]
    assert sorted(h["hypervisor_hostname"] for h in hypervisors) == [
        "compute1", "compute2", "compute3"]
    cloud.boot()  # a claim afterwards writes its node as ever
    cloud.settle()
    assert calls[1:] and set(calls[1:]) == {"compute_node_save"}
