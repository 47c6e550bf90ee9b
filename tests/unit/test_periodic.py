import threading

from novalite.periodic import PeriodicRunner, periodic_task


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
