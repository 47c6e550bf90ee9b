"""A process's services beat together: one thread and one call per kind of records."""

import logging
import queue
import threading

from novalite.service import heartbeats
from novalite.service.heartbeats import Beating, Heartbeats


class Records:
    """Records of one kind: each call's ids are queued; `gone` have no record."""

    def __init__(self, calls: queue.Queue, gone: frozenset[int] = frozenset()) -> None:
        self.calls = calls
        self.gone = gone

    def heartbeat(self, service_ids: list[int]) -> list[int]:
        self.calls.put((type(self).__name__, tuple(sorted(service_ids))))
        return [i for i in service_ids if i in self.gone]


class OtherRecords(Records):
    pass


def test_the_services_of_one_kind_beat_in_one_call_until_each_is_removed(conf, caplog):
    conf.set_override("report_interval", 1)
    calls: queue.Queue = queue.Queue()
    beats = Heartbeats("Records")
    computes = [Beating(Records(calls, frozenset({2})), i, "novalite-compute", f"h{i}")
                for i in (1, 2, 3)]
    for member in computes:
        beats.add(member)
    with caplog.at_level(logging.ERROR):
        assert calls.get(timeout=5) == ("Records", (1, 2, 3))
        calls.get(timeout=5)  # the next beat: the first one's failures are logged by then
    assert "novalite-compute on h2 could not report its state" in caplog.text
    assert "h1" not in caplog.text
    beats.remove(computes[0])
    while calls.get(timeout=5) != ("Records", (2, 3)):
        pass  # a beat that had begun before the removal
    thread = beats._thread
    for member in computes[1:]:
        beats.remove(member)
    thread.join(timeout=5)
    assert not thread.is_alive() and beats._thread is None
    beats.add(computes[0])  # a new thread for the next service
    assert calls.get(timeout=5) == ("Records", (1,))
    beats.remove(computes[0])


def test_a_kind_of_records_that_hangs_delays_only_its_own_beats(conf):
    conf.set_override("report_interval", 1)
    calls: queue.Queue = queue.Queue()
    released = threading.Event()

    class Hung(OtherRecords):
        def heartbeat(self, service_ids: list[int]) -> list[int]:
            released.wait(10)  # a conductor that does not answer
            return []

    hung, database = Hung(calls), Records(calls)
    assert heartbeats.of(hung) is not heartbeats.of(database)
    assert heartbeats.of(database) is heartbeats.of(Records(calls))
    members = [(hung, Beating(hung, 1, "novalite-compute", "h1")),
               (database, Beating(database, 2, "novalite-scheduler", "c1"))]
    for records, member in members:
        heartbeats.of(records).add(member)
    try:
        assert calls.get(timeout=5) == calls.get(timeout=5) == ("Records", (2,))
    finally:
        released.set()
        for records, member in members:
            heartbeats.of(records).remove(member)


def test_a_failed_beat_is_logged_for_each_service_and_the_next_one_tried(conf, caplog):
    conf.set_override("report_interval", 1)
    calls: queue.Queue = queue.Queue()

    class Broken(Records):
        def heartbeat(self, service_ids: list[int]) -> list[int]:
            calls.put("tried")
            raise RuntimeError("the conductor did not answer")

    beats = Heartbeats("Broken")
    member = Beating(Broken(calls), 1, "novalite-compute", "h1")
    with caplog.at_level(logging.ERROR):
        beats.add(member)
        assert calls.get(timeout=5) == calls.get(timeout=5) == "tried"
    beats.remove(member)
    assert ("novalite-compute on h1 could not report its state: the conductor did not "
            "answer") in caplog.text
