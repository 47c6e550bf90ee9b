"""Service lifecycle: registration, heartbeat, graceful stop."""

import subprocess
import sys
import threading
import time
from pathlib import Path

from novalite.db.api import services
from novalite.rpc import RPCClient, Target, get_transport
from novalite.service import base
from novalite.service.base import DBServiceRecords, Service, exit_deadline
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


def test_a_service_is_new_only_until_it_has_beaten(db, conf):
    """Its computes create their providers without looking first only on the first
    start; a restart looks (it may find them)."""
    conf.set_override("report_interval", 1)
    first = Service("novalite-scheduler", None, Manager("h1"), DBServiceRecords(), "h1")
    first.start()
    try:
        assert first.manager.service_new
        wait_for(lambda: services.service_get_all()[0].report_count >= 1, timeout=5,
                 what="a heartbeat")
    finally:
        first.stop()
    again = Service("novalite-scheduler", None, Manager("h1"), DBServiceRecords(), "h1")
    again.start()
    again.stop()
    assert not again.manager.service_new


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


class Recorder(Manager):
    """What ran when: the hooks and the message handled."""

    def __init__(self, host: str) -> None:
        super().__init__(host)
        self.seen: list[str] = []

    def init_host(self) -> None:
        self.seen.append("init_host")

    def pre_start_hook(self) -> None:
        self.seen.append(f"pre_start_hook {self.service_id is not None}")

    def post_start_hook(self) -> None:
        self.seen.append("post_start_hook")

    def build(self, ctx) -> None:
        self.seen.append("build")


def test_a_message_queued_before_the_start_is_taken_once_registered_and_prepared(db, conf):
    """A build queued for a compute while it was down finds its nodes reported (Nova's
    pre_start_hook runs before the RPC server)."""
    from novalite.context import get_admin_context
    client = RPCClient(get_transport(conf.transport_url), Target("recorded"), timeout=10)
    client.prepare(server="h1").cast(get_admin_context(), "build")
    manager = Recorder("h1")
    svc = Service("novalite-compute", "recorded", manager, DBServiceRecords(), "h1")
    svc.start()
    try:
        wait_for(lambda: "build" in manager.seen, timeout=5, what="the queued message")
    finally:
        svc.stop()
    assert manager.seen[:2] == ["init_host", "pre_start_hook True"]
    assert manager.seen.index("build") > 1


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

    exit_deadline(0.2, exit_now)
    stuck.stop()
    assert exited.is_set() and stuck.stopped


def test_work_left_running_past_the_stop_cannot_hold_the_exit(caplog):
    """The interpreter's exit waits for threads that are not daemons; the deadline still
    ends the process, and says which thread held it."""
    release = threading.Event()
    worker = threading.Thread(target=release.wait, name="rpc-compute_0")
    worker.start()
    exited = threading.Event()
    try:
        exit_deadline(0.1, lambda code: exited.set())
        assert exited.wait(5)
    finally:
        release.set()
        worker.join()
    assert "rpc-compute_0 at threading.py" in caplog.text


def test_a_prompt_stop_leaves_the_process_to_exit_on_its_own(tmp_path):
    """The deadline is a daemon: a process whose services stopped in time is not held
    until it fires."""
    script = ("from novalite.service.base import exit_deadline\n"
              "exit_deadline(60, lambda code: print('exited', code))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=30, cwd=Path(__file__).parents[3])
    assert (done.returncode, done.stdout) == (0, "")


def test_a_sigterm_the_kernel_gives_another_thread_still_stops_the_services(tmp_path):
    """Python runs signal handlers in the main thread only, when it next wakes; a wait
    with no timeout there never ended for a signal another thread had received."""
    script = (
        "import signal, sys, threading, time\n"
        "from novalite.service.base import run_until_signalled\n"
        "def signal_once_main_waits():\n"
        "    main = threading.main_thread().ident\n"
        "    while sys._current_frames()[main].f_code.co_name != 'wait':\n"
        "        time.sleep(0.01)\n"
        "    time.sleep(0.2)  # from in wait() to blocked in the lock it acquires\n"
        "    signal.pthread_kill(threading.get_ident(), signal.SIGTERM)\n"
        "class Service:\n"
        "    def start(self):\n"
        "        threading.Thread(target=signal_once_main_waits).start()\n"
        "    def stop(self):\n"
        "        print('stopped')\n"
        "run_until_signalled([Service()])\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=15, cwd=Path(__file__).parents[3])
    assert (done.returncode, done.stdout, done.stderr) == (0, "stopped\n", "")


class Prefetching(Manager):
    batches: list[tuple[str, list[str]]] = []

    @classmethod
    def prefetch_start(cls, managers):
        cls.batches.append(("prefetch", [m.host for m in managers]))

    @classmethod
    def pre_start_together(cls, managers):
        assert all(m.service_id is not None for m in managers)  # registered first
        cls.batches.append(("pre_start", [m.host for m in managers]))
        super().pre_start_together(managers)


class CountedRecords(DBServiceRecords):
    def __init__(self):
        self.asked: list[list[str]] = []

    def get_or_create(self, hosts, binary, topic):
        self.asked.append(list(hosts))
        return super().get_or_create(hosts, binary, topic)


def test_services_started_together_register_prefetch_and_prepare_a_chunk_at_a_time(db, conf,
                                                                            monkeypatch):
    monkeypatch.setattr(base, "_START_CHUNK", 2)
    records = CountedRecords()
    started = [Service("novalite-compute", None, Prefetching(f"h{i}"), records, f"h{i}")
               for i in range(5)]
    Prefetching.batches = []
    base.start_together(started)
    try:
        chunks = [["h0", "h1"], ["h2", "h3"], ["h4"]]
        assert records.asked == chunks
        assert Prefetching.batches == [(step, hosts) for hosts in chunks
                                       for step in ("prefetch", "pre_start")]
        assert {svc.host: svc.manager.service_id for svc in started} == {
            r.host: r.id for r in services.service_get_all("novalite-compute")}
    finally:
        for svc in started:
            svc.stop()
