"""What a compute service does on start about each instance of its host (the essentials of
Nova's `_init_instance`).

The service may have died mid-action: a task state it set will never be cleared by anyone
else, so each instance is looked at with the hypervisor's power state and given one step
that finishes or undoes the interrupted work. A pure function, so the rules read as a table.
"""

from __future__ import annotations

import dataclasses
import enum

from novalite.objects import states


class Step(enum.Enum):
    NOTHING = "nothing"
    ERROR = "error"  # the build died with the service: ERROR with a fault, claim freed
    DELETE = "delete"  # finish the delete
    STOP = "stop"  # run the stop again
    START = "start"
    REBOOT = "reboot"  # run the reboot again, of `reboot_type`
    SETTLE = "settle"  # clear the task state and take the hypervisor's power state
    RESUME_GUEST = "resume_guest"  # the driver's resume_state_on_host_boot
    REVERT_MOVE = "revert_move"  # a move died handing its disks over: back on this source
    REVERT_LANDING = "revert_landing"  # a move died landing here: back on its source
    FAIL_IN_PLACE = "fail_in_place"  # a rebuild died with the service: ERROR, still here
    CLEAR_TASK = "clear_task"  # a snapshot, shelve or password change died: idle again
    END_LIVE_MIGRATION = "end_live_migration"  # its source died: back here, running


@dataclasses.dataclass(frozen=True)
class Plan:
    step: Step
    reboot_type: str | None = None


_BUILD_TASKS = (states.SCHEDULING, states.BLOCK_DEVICE_MAPPING, states.NETWORKING,
                states.SPAWNING)
_REBOOT_TASKS = (*states.SOFT_REBOOT_STATES, *states.HARD_REBOOT_STATES)
_SETTLE_TASKS = (states.PAUSING, states.UNPAUSING, states.SUSPENDING, states.RESUMING)

# The vm_state a guest's power state implies once a pause/suspend task is abandoned.
VM_STATE_OF_POWER = {states.RUNNING: states.ACTIVE, states.POWER_PAUSED: states.PAUSED,
                     states.POWER_SUSPENDED: states.SUSPENDED}


def plan(vm_state: str | None, task_state: str | None, db_power_state: int | None,
         power_state: int, resume_guests: bool) -> Plan:
    """The step for an instance in `vm_state`/`task_state`, recorded with `db_power_state`,
    whose guest the hypervisor now reports in `power_state`; `resume_guests` is
    [DEFAULT] resume_guests_state_on_host_boot."""
    if task_state in (*states.REBUILD_TASKS, states.RESCUING, states.UNRESCUING):
        return Plan(Step.FAIL_IN_PLACE)  # its guest may be half made, as in Nova
    if task_state == states.MIGRATING:
        return Plan(Step.END_LIVE_MIGRATION)  # Nova ends it in error on the source
    if task_state in (*states.SNAPSHOT_TASKS, *states.SHELVE_TASKS, states.UPDATING_PASSWORD):
        return Plan(Step.CLEAR_TASK)  # Nova resets the task; the user may try again
    if vm_state == states.SOFT_DELETED or (vm_state == states.ERROR
                                           and task_state != states.DELETING):
        return Plan(Step.NOTHING)
    if vm_state == states.BUILDING and task_state == states.SCHEDULING:
        # Not started here yet: its build message waits in this host's durable queue and
        # builds it now (a lost one is ended by the build watchdogs), as Nova would.
        return Plan(Step.NOTHING)
    if vm_state == states.BUILDING or task_state in _BUILD_TASKS:
        return Plan(Step.ERROR)
    if task_state == states.DELETING:
        return Plan(Step.DELETE)
    if task_state in _REBOOT_TASKS:
        return _reboot_plan(task_state, power_state)
    if task_state in _SETTLE_TASKS:
        return Plan(Step.SETTLE)
    if task_state == states.RESIZE_MIGRATING:
        return Plan(Step.REVERT_MOVE)  # Nova rolls such a move back, for safety
    if task_state in (states.RESIZE_MIGRATED, states.RESIZE_FINISH):
        # Nova leaves these for ever; the source still has the guest's disk
        return Plan(Step.REVERT_LANDING)
    if task_state == states.POWERING_OFF:
        return Plan(Step.STOP)
    if task_state == states.POWERING_ON:
        return Plan(Step.START)
    if (task_state is None and resume_guests and db_power_state == states.RUNNING
            and power_state != states.RUNNING):
        return Plan(Step.RESUME_GUEST)
    return Plan(Step.NOTHING)


def _reboot_plan(task_state: str, power_state: int) -> Plan:
    """A reboot that had started and left the guest running is done; any other is run
    again, hard if the guest is not running (Nova's get_reboot_type)."""
    if (task_state in (states.REBOOT_STARTED, states.REBOOT_STARTED_HARD)
            and power_state == states.RUNNING):
        return Plan(Step.SETTLE)
    soft = power_state == states.RUNNING and task_state in states.SOFT_REBOOT_STATES
    return Plan(Step.REBOOT, "SOFT" if soft else "HARD")
