"""What the power-state sync does about an idle instance, given what its hypervisor says.

The hypervisor is the authority on power: the compute first copies the power state it
reports into the database, then settles the vm_state as Nova's
`_sync_instance_power_state` does. A guest that stopped on its own is stopped through the
normal stop path (an action, an event, vm_state stopped), so the history says what
happened; a stopped instance whose guest runs again is stopped again.
"""

from __future__ import annotations

import dataclasses

from novalite.objects import states

_OFF_OR_CRASHED = (states.SHUTDOWN, states.CRASHED)


@dataclasses.dataclass(frozen=True)
class Verdict:
    stop: bool  # stop the instance through the stop path
    note: str | None = None  # why, or why a mismatch is left alone (for the log)


def reconcile(vm_state: str | None, power_state: int) -> Verdict:
    """The verdict for an instance in `vm_state` whose guest is in `power_state`."""
    name = states.POWER_STATE_NAMES.get(power_state, str(power_state))
    if vm_state == states.ACTIVE:
        if power_state in (*_OFF_OR_CRASHED, states.POWER_SUSPENDED):
            return Verdict(True, f"the guest is {name} but the instance is active")
        if power_state == states.POWER_PAUSED:
            return Verdict(False, "the guest is paused unexpectedly; left alone")
        if power_state == states.NOSTATE:
            return Verdict(False, "the guest is unexpectedly not found; left alone")
    elif vm_state == states.STOPPED and power_state not in states.POWERED_OFF:
        return Verdict(True, f"the guest is {name} but the instance is stopped")
    elif vm_state == states.PAUSED and power_state in _OFF_OR_CRASHED:
        return Verdict(True, f"the paused guest is {name}")
    return Verdict(False)
