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
