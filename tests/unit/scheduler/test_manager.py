from novalite.scheduler import rpcapi
from novalite.scheduler.manager import SchedulerManager


def test_select_destinations_is_acked_once_answered_the_host_reports_at_once():
    late = {name for name in dir(SchedulerManager)
            if getattr(getattr(SchedulerManager, name), "ack_when_done", False)}
    assert late == {"select_destinations"}


def test_the_call_sent_again_after_a_lost_reply_is_the_one_the_scheduler_may_rerun():
    assert rpcapi.SchedulerAPI().client.idempotent == {"select_destinations"}
