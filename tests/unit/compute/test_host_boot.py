import pytest

from novalite.compute import host_boot
from novalite.compute.host_boot import Plan, Step
from novalite.objects import states

RUNNING, SHUTDOWN, NOSTATE = states.RUNNING, states.SHUTDOWN, states.NOSTATE
P_PAUSED, P_SUSPENDED = states.POWER_PAUSED, states.POWER_SUSPENDED


@pytest.mark.parametrize(("vm_state", "task_state", "power_state", "expected"), [
    ("active", None, RUNNING, Plan(Step.NOTHING)),
    ("soft-delete", "deleting", NOSTATE, Plan(Step.NOTHING)),
    ("error", None, SHUTDOWN, Plan(Step.NOTHING)),
    ("error", "powering-off", RUNNING, Plan(Step.NOTHING)),
    ("error", "deleting", RUNNING, Plan(Step.DELETE)),
    ("building", None, NOSTATE, Plan(Step.ERROR)),
    ("building", "scheduling", NOSTATE, Plan(Step.NOTHING)),  # its message is queued
    ("building", "spawning", NOSTATE, Plan(Step.ERROR)),
    ("active", "spawning", RUNNING, Plan(Step.ERROR)),
    ("active", "deleting", RUNNING, Plan(Step.DELETE)),
    ("active", "powering-off", RUNNING, Plan(Step.STOP)),
    ("stopped", "powering-on", SHUTDOWN, Plan(Step.START)),
    ("active", "rebooting", RUNNING, Plan(Step.REBOOT, "SOFT")),
    ("active", "reboot_pending", RUNNING, Plan(Step.REBOOT, "SOFT")),
    ("active", "rebooting", SHUTDOWN, Plan(Step.REBOOT, "HARD")),  # a dead guest: hard
    ("active", "reboot_started", NOSTATE, Plan(Step.REBOOT, "HARD")),
    ("stopped", "rebooting_hard", SHUTDOWN, Plan(Step.REBOOT, "HARD")),
    ("active", "reboot_started", RUNNING, Plan(Step.SETTLE)),  # it did reboot
    ("stopped", "reboot_started_hard", RUNNING, Plan(Step.SETTLE)),
    ("active", "pausing", P_PAUSED, Plan(Step.SETTLE)),
    ("paused", "unpausing", P_PAUSED, Plan(Step.SETTLE)),
    ("active", "suspending", RUNNING, Plan(Step.SETTLE)),
    ("suspended", "resuming", P_SUSPENDED, Plan(Step.SETTLE)),
    ("active", "image_snapshot", RUNNING, Plan(Step.CLEAR_TASK)),
])
def test_the_step_for_an_interrupted_task(vm_state, task_state, power_state, expected):
    assert host_boot.plan(vm_state, task_state, RUNNING, power_state, False) == expected


@pytest.mark.parametrize(("db_power", "power", "resume", "step"), [
    (RUNNING, SHUTDOWN, True, Step.RESUME_GUEST),
    (RUNNING, NOSTATE, True, Step.RESUME_GUEST),
    (RUNNING, SHUTDOWN, False, Step.NOTHING),  # the option is off by default, as Nova
    (RUNNING, RUNNING, True, Step.NOTHING),
    (SHUTDOWN, SHUTDOWN, True, Step.NOTHING),  # it was not running: it stays off
])
def test_guests_come_back_on_host_boot_only_when_configured(db_power, power, resume, step):
    assert host_boot.plan("active", None, db_power, power, resume).step is step


def test_an_abandoned_pause_takes_the_vm_state_the_power_state_implies():
    assert host_boot.VM_STATE_OF_POWER == {RUNNING: "active", P_PAUSED: "paused",
                                           P_SUSPENDED: "suspended"}


def test_a_move_interrupted_while_handing_over_is_reverted():
    assert host_boot.plan(states.ACTIVE, states.RESIZE_MIGRATING, states.RUNNING,
                          states.NOSTATE, False).step is host_boot.Step.REVERT_MOVE


@pytest.mark.parametrize("task_state", [states.RESIZE_MIGRATED, states.RESIZE_FINISH])
@pytest.mark.parametrize("vm_state", [states.ACTIVE, states.STOPPED])
def test_a_move_interrupted_while_landing_goes_back_to_its_source(vm_state, task_state):
    assert host_boot.plan(vm_state, task_state, states.SHUTDOWN, states.NOSTATE,
                          False).step is host_boot.Step.REVERT_LANDING


@pytest.mark.parametrize("vm_state", [states.ACTIVE, states.STOPPED, states.ERROR])
@pytest.mark.parametrize("task_state", states.REBUILD_TASKS)
def test_an_interrupted_rebuild_fails_in_place(vm_state, task_state):
    assert host_boot.plan(vm_state, task_state, states.RUNNING, states.NOSTATE, False) == \
        Plan(Step.FAIL_IN_PLACE)


@pytest.mark.parametrize("task_state", [states.RESCUING, states.UNRESCUING])
def test_an_interrupted_rescue_fails_in_place(task_state):
    assert host_boot.plan(states.ACTIVE, task_state, states.RUNNING, states.RUNNING,
                          False).step is Step.FAIL_IN_PLACE


@pytest.mark.parametrize("task_state", [*states.SNAPSHOT_TASKS, *states.SHELVE_TASKS,
                                        states.UPDATING_PASSWORD])
def test_an_interrupted_snapshot_shelve_or_password_change_is_idle_again(task_state):
    assert host_boot.plan(states.ACTIVE, task_state, states.RUNNING, states.SHUTDOWN,
                          False).step is Step.CLEAR_TASK


def test_an_interrupted_live_migration_ends_on_its_source():
    assert host_boot.plan(states.ACTIVE, states.MIGRATING, states.RUNNING, states.RUNNING,
                          False).step is Step.END_LIVE_MIGRATION
