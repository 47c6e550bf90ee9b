import pytest

from novalite.compute import power_sync
from novalite.compute.manager import ComputeManager
from novalite.objects import states
from novalite.periodic import PeriodicRunner

ACTIVE, STOPPED, PAUSED = states.ACTIVE, states.STOPPED, states.PAUSED
RUNNING, SHUTDOWN, CRASHED = states.RUNNING, states.SHUTDOWN, states.CRASHED
NOSTATE, P_PAUSED, P_SUSPENDED = states.NOSTATE, states.POWER_PAUSED, states.POWER_SUSPENDED


@pytest.mark.parametrize(("vm_state", "power_state", "stop"), [
    (ACTIVE, RUNNING, False),
    (ACTIVE, SHUTDOWN, True),
    (ACTIVE, CRASHED, True),
    (ACTIVE, P_SUSPENDED, True),
    (ACTIVE, P_PAUSED, False),  # may be external instrumentation: left alone
    (ACTIVE, NOSTATE, False),  # the hypervisor may be restarting: left alone
    (STOPPED, SHUTDOWN, False),
    (STOPPED, NOSTATE, False),
    (STOPPED, CRASHED, False),
    (STOPPED, RUNNING, True),
    (STOPPED, P_PAUSED, True),
    (PAUSED, SHUTDOWN, True),
    (PAUSED, RUNNING, False),
    (states.ERROR, SHUTDOWN, False),  # Nova leaves these vm_states alone
    (states.BUILDING, SHUTDOWN, False),
    (states.SUSPENDED, RUNNING, False),
])
def test_reconcile_follows_novas_table(vm_state, power_state, stop):
    assert power_sync.reconcile(vm_state, power_state).stop is stop


def test_a_verdict_says_why():
    assert power_sync.reconcile(ACTIVE, SHUTDOWN).note == \
        "the guest is shutdown but the instance is active"
    assert power_sync.reconcile(ACTIVE, NOSTATE).note.endswith("left alone")
    assert power_sync.reconcile(ACTIVE, RUNNING).note is None


@pytest.mark.parametrize(("interval", "spacing"), [(600, 600.0), (5, 5.0), (0, 60.0),
                                                   (-1, None)])
def test_the_sync_runs_at_startup_then_every_interval_unless_negative(conf, interval,
                                                                      spacing):
    conf.set_override("sync_power_state_interval", interval)
    runner = PeriodicRunner(ComputeManager("h1"), "compute")
    tasks = {method.__name__: (every, first) for method, every, first in runner.tasks}
    assert tasks.get("_sync_power_states") == (None if spacing is None else (spacing, 0.0))


def test_the_first_sync_after_a_start_that_found_the_host_idle_reads_nothing(conf):
    class Conductor:
        asked = 0

        def instance_get_all_by_host(self, ctx, host):
            self.asked += 1
            return []

    manager = ComputeManager("h1")
    manager.conductor = Conductor()
    manager._at_start = ([], [])  # what prefetch_start found: no instances, no moves
    manager.init_host()
    manager._sync_power_states(None)
    assert manager.conductor.asked == 0
    manager._sync_power_states(None)
    assert manager.conductor.asked == 1
    manager._sync_power_states(None, [])  # read with other hosts'
    assert manager.conductor.asked == 1
    manager.cleanup_host()
