"""The compute manager's uniform action wrapping: every action records its event start and
finish under the instance lock, and a failure leaves a fault before the task state clears."""

import pytest

from novalite import exception
from novalite.compute import manager as compute_manager
from novalite.compute.host_boot import Step
from novalite.compute.manager import BUILD_EVENT, ComputeManager
from novalite.compute.wrapping import BuildResult
from novalite.context import get_admin_context
from novalite.objects import states
from novalite.objects.instance import Instance
from novalite.objects.request_spec import FilterProperties
from tests import builders

CTX = get_admin_context()


class RecordingConductor:
    """Records what the manager asks the conductor, in order."""

    def __init__(self):
        self.calls = []
        self.options = []  # each call's keyword arguments, beside it in `calls`

    def __getattr__(self, name):
        def record(ctx, *args, **kwargs):
            self.calls.append((name, args))
            self.options.append(kwargs)
            if name == "instance_update":
                return Instance(uuid=args[0], **{k: v for k, v in args[1].items()
                                                 if k in ("vm_state", "task_state")})
            if name == "block_device_mapping_get_all_by_instance":
                return []  # no volumes
            return None
        return record

    def names(self):
        return [name for name, _ in self.calls]


@pytest.fixture
def manager(conf, monkeypatch):
    manager = ComputeManager("h1")
    manager.driver.init_host("h1")
    manager.conductor = RecordingConductor()
    monkeypatch.setattr(compute_manager.placement_client, "free_allocations",
                        lambda ctx, uuid: manager.conductor.calls.append(("free", (uuid,))))
    yield manager
    manager.cleanup_host()


def test_a_driver_failure_during_terminate_leaves_a_fault_error_and_a_finished_event(manager):
    def broken(ctx, instance):
        raise RuntimeError("the hypervisor is gone")
    manager.driver.destroy = broken
    manager.terminate_instance(CTX, Instance(uuid="u-1", task_state=states.DELETING))
    names = manager.conductor.names()
    assert names == ["action_event_start", "instance_fault_create", "instance_update",
                     "action_event_finish"]
    fault = manager.conductor.calls[1][1]
    assert fault[2] == "the hypervisor is gone"
    assert manager.conductor.calls[2][1][1] == {"vm_state": states.ERROR, "task_state": None}
    assert manager.conductor.calls[3][1][2] == "Error"


def test_a_terminate_that_works_finishes_its_event_with_success(manager):
    manager.terminate_instance(CTX, Instance(uuid="u-1", task_state=states.DELETING))
    names = manager.conductor.names()
    assert names[0] == "action_event_start" and names[-1] == "action_event_finish"
    assert "instance_destroy" in names and "instance_fault_create" not in names
    assert manager.conductor.calls[-1][1][2] == "Success"


def test_a_failed_power_action_keeps_its_vm_state_with_a_fault(manager):
    def broken(instance):
        raise RuntimeError("QMP said no")
    manager.driver.pause = broken
    manager.pause_instance(CTX, Instance(uuid="u-1", task_state=states.PAUSING))
    assert manager.conductor.names() == ["action_event_start", "instance_fault_create",
                                         "instance_update", "action_event_finish"]
    assert manager.conductor.calls[2][1][1] == {"task_state": None}


def test_every_rpc_action_on_an_instance_is_wrapped():
    wrapped = {name for name in ("terminate_instance", "stop_instance", "start_instance",
                                 "reboot_instance", "pause_instance", "unpause_instance",
                                 "suspend_instance", "resume_instance")
               if hasattr(getattr(ComputeManager, name), "__wrapped__")}
    assert len(wrapped) == 8
    assert hasattr(ComputeManager._build, "__wrapped__")


@pytest.fixture
def build_args():
    spec = builders.request_spec()
    return spec, FilterProperties(num_attempts=1), []


def test_a_build_that_fails_is_rescheduled_and_its_event_finished_with_the_error(
        manager, build_args, monkeypatch):
    spec, props, hosts = build_args
    rescheduled = []
    monkeypatch.setattr(manager.compute_task, "build_instances",
                        lambda *args: rescheduled.append(args))

    def broken(ctx, instance, image, block_device_info=None):
        raise RuntimeError("no disk")
    manager.driver.spawn = broken
    manager.rt.instance_claim = lambda *args: None
    instance = Instance(uuid=spec.instance_uuid, task_state=states.SCHEDULING)
    result = manager._build(CTX, instance, spec, props, hosts, "h1")
    assert result is BuildResult.RESCHEDULED
    assert rescheduled and props.last_error == "RuntimeError: no disk"
    names = manager.conductor.names()
    assert names[0] == "instance_update" and "action_event_start" not in names
    assert manager.conductor.options[0]["starts_event"] == BUILD_EVENT  # begun as taken
    assert names[-1] == "action_event_finish"
    assert manager.conductor.calls[-1][1][2] == "Error"
    assert "instance_fault_create" not in names  # a reschedule is not the end


def test_a_build_whose_failure_cannot_be_handled_is_left_to_the_watchdog(
        manager, build_args):
    spec, props, hosts = build_args

    def unreachable(ctx, *args, **kwargs):
        raise TimeoutError("the conductor does not answer")
    manager.conductor.instance_update = unreachable
    instance = Instance(uuid=spec.instance_uuid, task_state=states.SCHEDULING)
    assert manager._build(CTX, instance, spec, props, hosts, "h1") is BuildResult.FAILED


def test_a_build_that_goes_active_finishes_its_event_with_success(manager, build_args):
    spec, props, hosts = build_args
    instance = Instance(uuid=spec.instance_uuid, task_state=states.SCHEDULING)
    manager.rt.instance_claim = lambda *args: None
    assert manager._build(CTX, instance, spec, props, hosts, "h1") is BuildResult.ACTIVE
    updates = [(args[1], options) for (name, args), options in zip(
        manager.conductor.calls, manager.conductor.options, strict=True)
        if name == "instance_update"]
    active, options = updates[-1]
    assert active["vm_state"] == states.ACTIVE and options["ends_event"] == BUILD_EVENT
    assert "action_event_finish" not in manager.conductor.names()  # ended by the update


def test_every_start_up_step_but_nothing_has_a_handler(manager):
    assert set(manager._init_steps) == set(Step) - {Step.NOTHING}


def test_a_build_older_than_instance_build_timeout_is_ended(manager, conf, monkeypatch):
    import datetime

    from novalite.timeutils import utcnow
    conf.set_override("instance_build_timeout", 60)
    old = utcnow() - datetime.timedelta(seconds=120)
    mine = [Instance(uuid="old", vm_state=states.BUILDING, task_state=states.SCHEDULING,
                     created_at=old),
            Instance(uuid="running", vm_state=states.BUILDING, task_state=states.SPAWNING,
                     created_at=old),
            Instance(uuid="new", vm_state=states.BUILDING, task_state=states.SCHEDULING,
                     created_at=utcnow()),
            Instance(uuid="done", vm_state=states.ACTIVE, created_at=old)]
    monkeypatch.setattr(manager.conductor, "instance_get_all_by_host",
                        lambda ctx, host: mine, raising=False)
    manager._building.add("running")
    manager._check_instance_build_time(CTX)
    touched = {args[0] for name, args in manager.conductor.calls
               if name in ("instance_update", "instance_fault_create", "free")}
    assert touched == {"old"}
    assert ("free", ("old",)) in manager.conductor.calls
    (update,) = [args[1] for name, args in manager.conductor.calls
                 if name == "instance_update"]
    assert (update["vm_state"], update["host"], update["node"]) == ("error", None, None)



def test_a_build_sent_twice_is_taken_once_and_the_second_leaves_no_trace(
        manager, build_args, monkeypatch):
    """A conductor that died before its message was acked sends the build again: the
    guarded take (out of SCHEDULING, and only on this host) refuses the second, which
    records no event, sends no notification and counts no build."""
    spec, props, hosts = build_args
    manager.rt.instance_claim = lambda *args: None
    instance = Instance(uuid=spec.instance_uuid, task_state=states.SCHEDULING)
    assert manager._build(CTX, instance, spec, props, hosts, "h1") is BuildResult.ACTIVE
    take = manager.conductor.calls[0]
    assert take[0] == "instance_update" and take[1][1] == {"task_state": None}
    refused = []

    def already_taken(ctx, uuid, values, **guards):
        refused.append(guards)
        raise exception.UnexpectedTaskStateError(instance_uuid=uuid, expected=[],
                                                 actual=None)
    manager.conductor.instance_update = already_taken
    counted = []
    monkeypatch.setattr(manager, "_count_build", lambda *args: counted.append(args))
    before = list(manager.conductor.calls)
    manager.build_and_run_instance(CTX, instance, spec, props, hosts, "h1")
    assert refused == [{"expected_task_state": [states.SCHEDULING],
                        "check_task_state": True, "expected_host": "h1",
                        "starts_event": BUILD_EVENT, "ends_event": None}]
    assert manager.conductor.calls == before and counted == []
