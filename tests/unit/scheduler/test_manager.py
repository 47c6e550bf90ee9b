from novalite.scheduler.manager import SchedulerManager


def test_select_destinations_is_acked_once_answered_the_host_reports_at_once():
    late = {name for name in dir(SchedulerManager)
            if getattr(getattr(SchedulerManager, name), "ack_when_done", False)}
    assert late == {"select_destinations"}
