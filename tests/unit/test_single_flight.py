import threading

import pytest

from novalite.single_flight import SingleFlight
from tests.waiting import wait_for

WAIT = 10  # seconds: only a broken sharing ever waits this long


class Question:
    """A question whose calls each block until released, counting the calls."""

    def __init__(self, answer="answer", fails=False):
        self.answer, self.fails = answer, fails
        self.calls = 0
        self.asked = threading.Event()
        self.release = threading.Event()

    def __call__(self):
        self.calls += 1
        self.asked.set()
        assert self.release.wait(WAIT)
        if self.fails:
            self.fails = False  # only the first call fails
            raise RuntimeError("placement is down")
        return f"{self.answer} {self.calls}"


def in_thread(fn):
    result = {}

    def run():
        try:
            result["value"] = fn()
        except Exception as e:
            result["error"] = e

    thread = threading.Thread(target=run)
    thread.start()
    return thread, result


def asked_together(flight, question):
    """The results of two callers asking `question`, the second while the first's call
    runs."""
    first, first_result = in_thread(lambda: flight.ask("q", question))
    assert question.asked.wait(WAIT)
    second, second_result = in_thread(lambda: flight.ask("q", question))
    wait_for(lambda: flight._flying["q"].waiters == 1, what="a caller waiting")
    question.release.set()
    first.join(WAIT), second.join(WAIT)
    return first_result, second_result


def test_a_caller_asking_while_the_same_question_runs_gets_its_answer():
    flight, question = SingleFlight(), Question()
    first_result, second_result = asked_together(flight, question)
    assert first_result == second_result == {"value": "answer 1"}
    assert question.calls == 1
    assert flight._flying == {}


def test_a_question_asked_after_the_answer_came_is_asked_again():
    flight, question = SingleFlight(), Question()
    question.release.set()
    assert flight.ask("q", question) == "answer 1"
    assert flight.ask("q", question) == "answer 2"


def test_different_questions_are_not_shared():
    flight, one, other = SingleFlight(), Question("one"), Question("other")
    first, first_result = in_thread(lambda: flight.ask("one", one))
    assert one.asked.wait(WAIT)
    other.release.set()
    assert flight.ask("other", other) == "other 1"  # not held up by "one"
    one.release.set()
    first.join(WAIT)
    assert first_result == {"value": "one 1"}


def test_a_failed_question_is_asked_again_by_each_waiter():
    flight, question = SingleFlight(), Question(fails=True)
    first_result, second_result = asked_together(flight, question)
    assert isinstance(first_result["error"], RuntimeError)
    assert second_result == {"value": "answer 2"}
    assert flight._flying == {}


def test_a_failure_is_raised_to_the_caller_that_asked():
    flight, question = SingleFlight(), Question(fails=True)
    question.release.set()
    with pytest.raises(RuntimeError):
        flight.ask("q", question)
    assert flight.ask("q", question) == "answer 2"
