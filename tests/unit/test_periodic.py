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
