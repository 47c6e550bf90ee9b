import pytest

from novalite.periodic import PeriodicRunner
from novalite.scheduler import rpcapi
from novalite.scheduler.manager import SchedulerManager


def test_select_destinations_is_acked_once_answered_the_host_reports_at_once():
    late = {name for name in dir(SchedulerManager)
            if getattr(getattr(SchedulerManager, name), "ack_when_done", False)}
    assert late == {"select_destinations"}


def test_the_call_sent_again_after_a_lost_reply_is_the_one_the_scheduler_may_rerun():
    assert rpcapi.SchedulerAPI().client.idempotent == {"select_destinations"}


@pytest.mark.parametrize(("interval", "spacing"), [(60, 60.0), (5, 5.0), (0, 60.0),
                                                   (-1, None)])
def test_host_states_refresh_at_start_then_every_interval_unless_negative(conf, interval,
                                                                          spacing):
    conf.set_override("periodic_task_interval", interval, group="scheduler")
    runner = PeriodicRunner(SchedulerManager("s1"), "scheduler")
    tasks = {method.__name__: (every, first) for method, every, first in runner.tasks}
    assert tasks.get("_refresh_host_states") == (None if spacing is None else (spacing, 0.0))


def test_the_periodic_refresh_warms_the_drivers_host_manager(conf):
    manager = SchedulerManager("s1")
    warmed = []
    manager.driver.host_manager.warm = lambda: warmed.append(True)
    manager._refresh_host_states(None)
    assert warmed == [True]
