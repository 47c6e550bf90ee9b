"""The server's side of late acknowledgement: which methods opted in, `done` once the
method ran, whatever its outcome, and `redelivered()` inside it."""

import threading

from novalite import rpc
from novalite.rpc import RPCServer, Target, ack_when_done, get_transport


class Tasks:
    target = Target(version="1.0", namespace="tasks")

    def __init__(self):
        self.seen = []

    @ack_when_done
    def build(self, ctx, fail=False):
        self.seen.append(rpc.redelivered())
        if fail:
            raise RuntimeError("the build failed")

    def ping(self, ctx):
        return "pong"


def message(method, **args):
    return {"method": method, "namespace": "tasks", "version": "1.0", "args": args}


def test_only_methods_that_opted_in_are_acked_late(conf):
    server = RPCServer(get_transport("inprocess://"), Target("svc", "h"), [Tasks()], 4)
    assert server.acks_late(message("build"))
    assert not server.acks_late(message("ping"))
    assert not server.acks_late(message("nothing_like_it"))
    assert server.late_ack_capacity() == 8
    plain = RPCServer(get_transport("inprocess://"), Target("svc", "h"), [object()], 4)
    assert plain.late_ack_capacity() == 0


def test_done_comes_after_the_method_ran_whatever_its_outcome(conf):
    tasks = Tasks()
    server = RPCServer(get_transport("inprocess://"), Target("svc", "h"), [tasks], 2)
    finished = []
    for fail, redelivered in ((False, True), (True, False)):
        done = threading.Event()
        server.deliver(message("build", fail=fail), None,
                       lambda done=done: (finished.append(len(tasks.seen)), done.set()),
                       redelivered=redelivered)
        assert done.wait(5)
    assert tasks.seen == [True, False] and finished == [1, 2]
    assert not rpc.redelivered()  # only inside the method
    server.wait()


class Slow:
    target = Target(version="1.0", namespace="tasks")

    def __init__(self):
        self.release = threading.Event()
        self.runs = []

    @ack_when_done
    def build(self, ctx):
        self.runs.append(rpc.redelivered())
        self.release.wait(5)


def test_a_late_message_handed_over_again_while_it_runs_waits_for_the_first_run(conf):
    """The broker requeues it when the connection is lost: a second run must not race
    the first, which still goes on."""
    slow = Slow()
    server = RPCServer(get_transport("inprocess://"), Target("svc", "h"), [slow], 4)
    finished = []
    server.deliver(message("build"), None, lambda: finished.append(1))
    server.deliver(message("build"), None, lambda: finished.append(2), redelivered=True)
    assert not server.wait_idle(0.2)  # the first runs, the second waits for it
    assert slow.runs == [False]
    slow.release.set()
    assert server.wait_idle(5)
    assert slow.runs == [False, True] and finished == [1, 2]
    server.wait()
