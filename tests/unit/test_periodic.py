import queue
import threading

from novalite.periodic import PeriodicRunner, periodic_task
from tests.waiting import wait_for


class Manager:
    def __init__(self):
        self.calls = []
        self.ran = threading.Event()

    @periodic_task(spacing=0.01, run_immediately=True)
    def tick(self, ctx):
        self.calls.append(ctx.request_id)
        if len(self.calls) >= 3:
            self.ran.set()

    @periodic_task(spacing=lambda: 0.01)
    def broken(self, ctx):
        raise RuntimeError("a failing task must not stop the others")


def test_tasks_repeat_with_a_fresh_context_and_survive_failures():
    manager = Manager()
    runner = PeriodicRunner(manager, "test")
    assert len(runner.tasks) == 2
    runner.start()
    assert manager.ran.wait(5)
    runner.stop()
    assert len(set(manager.calls)) == len(manager.calls)  # one request id per run


class Host:
    """A simulated host's manager: its task records which host ran, on which thread."""

    def __init__(self, name, ran, gate=None):
        self.name, self.ran, self.gate = name, ran, gate

    @periodic_task(spacing=0.01, run_immediately=True)
    def report(self, ctx):
        self.ran.put((self.name, threading.current_thread().name))
        if self.gate is not None:
            self.gate.wait(5)


def test_the_runners_of_one_group_share_a_thread_and_stop_one_by_one():
    ran = queue.Queue()
    runners = [PeriodicRunner(Host(f"h{i}", ran), f"compute-h{i}", group="test-group")
               for i in range(3)]
    for runner in runners:
        runner.start()
    seen = {ran.get(timeout=5) for _ in range(30)}
    assert {host for host, _ in seen} == {"h0", "h1", "h2"}
    assert {thread for _, thread in seen} == {"periodic-test-group"}
    runners[0].stop()
    while not ran.empty():
        ran.get()
    assert "h0" not in {ran.get(timeout=5)[0] for _ in range(20)}
    for runner in runners[1:]:
        runner.stop()
    wait_for(lambda: "periodic-test-group" not in
             {t.name for t in threading.enumerate()}, what="the group's thread to end")


def test_stop_waits_for_the_runners_task_under_way_and_none_runs_after():
    ran, gate = queue.Queue(), threading.Event()
    runner = PeriodicRunner(Host("h0", ran, gate), "compute-h0", group="test-stop")
    runner.start()
    ran.get(timeout=5)  # the task is running, held at the gate
    stopper = threading.Thread(target=runner.stop)
    stopper.start()
    stopper.join(0.1)
    assert stopper.is_alive()  # waiting for the task
    gate.set()
    stopper.join(5)
    assert not stopper.is_alive()
    gate.clear()
    assert ran.empty()
    runner.start()  # started again: it runs again
    gate.set()
    assert ran.get(timeout=5)[0] == "h0"
    runner.stop()


def _read_for_all(ctx, hosts):
    if any(host.name == "broken" for host in hosts):
        raise RuntimeError("the database went away")
    return [f"read for {host.name}" for host in hosts]


class Prefetching:
    """A host whose task reads something first, which its group may read for many."""

    def __init__(self, name, ran):
        self.name, self.ran = name, ran

    @periodic_task(spacing=60, run_immediately=True, prefetch=_read_for_all)
    def report(self, ctx, prefetched):
        self.ran.put((self.name, prefetched))


def _due_together(group, names):
    """What each of these hosts' runs got, all queued while the group's thread was busy
    with another runner's task, so that they come due together."""
    busy, release, ran = threading.Event(), threading.Event(), queue.Queue()

    class Busy:
        @periodic_task(spacing=60, run_immediately=True)
        def hold(self, ctx):
            busy.set()
            release.wait(5)

    runners = [PeriodicRunner(Busy(), "busy", group=group)]
    runners[0].start()
    assert busy.wait(5)
    runners += [PeriodicRunner(Prefetching(name, ran), name, group=group) for name in names]
    for runner in runners[1:]:
        runner.start()
    release.set()
    got = sorted(ran.get(timeout=5) for _ in names)
    for runner in runners:
        runner.stop()
    return got


def test_a_task_due_on_many_runners_at_once_prefetches_once_for_all(monkeypatch):
    reads = []
    monkeypatch.setattr(Prefetching.report, "_periodic_prefetch",
                        lambda ctx, hosts: reads.append(len(hosts)) or _read_for_all(ctx, hosts))
    assert _due_together("test-prefetch", ["h0", "h1", "h2"]) == [
        ("h0", "read for h0"), ("h1", "read for h1"), ("h2", "read for h2")]
    assert reads == [3]


def test_a_failed_prefetch_leaves_each_run_to_read_for_itself(caplog):
    assert _due_together("test-broken", ["broken", "h1"]) == [("broken", None), ("h1", None)]
    assert "Prefetching for 2 runs of periodic task report failed" in caplog.text


def test_a_run_due_alone_reads_for_itself():
    assert _due_together("test-alone", ["h0"]) == [("h0", None)]
