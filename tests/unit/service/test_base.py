"""Service lifecycle: registration, heartbeat, graceful stop."""

import threading
import time

import pytest

from novalite.db.api import services
from novalite.rpc import RPCClient, Target, get_transport
from novalite.service.base import DBServiceRecords, Service, stop_within
from novalite.service.manager import Manager
from tests.waiting import wait_for


class Slow(Manager):
    def work(self, ctx, seconds):
        time.sleep(seconds)
        return "done"


def test_heartbeat_keeps_the_service_up(db, conf):
    conf.set_override("report_interval", 1)
    svc = Service("novalite-scheduler", None, Manager("h1"), DBServiceRecords(), "h1")
    svc.start()
    try:
        wait_for(lambda: services.service_get_all()[0].report_count >= 1, timeout=5,
                 what="a heartbeat")
    finally:
        svc.stop()
    record = services.service_get_all()[0]
    assert (record.host, record.binary) == ("h1", "novalite-scheduler")
    assert svc.manager.service_id == record.id


def test_stop_lets_in_flight_calls_finish(db, conf):
    svc = Service("novalite-conductor", "slowtopic", Slow("h1"), DBServiceRecords(), "h1")
    svc.start()
    client = RPCClient(get_transport(conf.transport_url), Target("slowtopic"), timeout=10)
    from novalite.context import get_admin_context
    result = {}
    caller = threading.Thread(target=lambda: result.update(
        r=client.prepare(server="h1").call(get_admin_context(), "work", seconds=0.3)))
    caller.start()
    time.sleep(0.05)
    svc.stop()
    caller.join()
    assert result["r"] == "done"


class Stuck:
    """A service whose stop waits on something that never comes (a call to a conductor
    stopped along with it), unless released."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.stopped = False

    def stop(self) -> None:
        self.release.wait(30)
        self.stopped = True


def test_a_stop_that_outlasts_the_graceful_shutdown_timeout_exits_the_process():
    stuck = Stuck()
    exited = threading.Event()

    def exit_now(code: int) -> None:
        assert code == 1
        exited.set()
        stuck.release.set()

    stop_within([stuck], 0.2, exit_now)  # type: ignore[list-item]
    assert exited.is_set() and stuck.stopped


def test_a_prompt_stop_does_not_exit():
    stuck = Stuck()
    stuck.release.set()
    stop_within([stuck], 0.2, lambda code: pytest.fail("exited"))  # type: ignore[list-item]
    assert stuck.stopped
