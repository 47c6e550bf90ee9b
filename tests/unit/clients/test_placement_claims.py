"""A claim is a new consumer's PUT /allocations: when placement (or the connection) dies
between committing it and answering, the request goes again (connect_retries) and meets
the consumer it made. The claim is then its own, not refused."""

from __future__ import annotations

import json

import pytest

from novalite.clients.placement import Claim, SchedulerReportClient
from novalite.context import get_admin_context
from novalite.objects.allocation_request import AllocationRequest
from tests.unit.clients import fake_placement

CLAIM = AllocationRequest(allocations={"rp1": {"VCPU": 1, "MEMORY_MB": 512}})


class Consumers(fake_placement.Handler):
    """Placement's allocations by consumer; the first `answers_lost` accepted writes
    are committed and their connection closed before the answer."""

    held: dict[str, dict] = {}
    answers_lost = 0
    log: list[str] = []

    def do_PUT(self):  # noqa: N802 (http.server's name)
        cls = type(self)
        cls.log.append("PUT")
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        consumer = self.path.rsplit("/", 1)[1]
        if consumer in cls.held and body["consumer_generation"] is None:
            self.answer(409, {"errors": [{
                "code": "placement.concurrent_update",
                "detail": "consumer generation conflict - expected null but got 1"}]})
            return
        cls.held[consumer] = body
        if cls.answers_lost:
            cls.answers_lost -= 1
            self.close_connection = True
            return
        self.answer(204)

    def do_GET(self):  # noqa: N802
        cls = type(self)
        cls.log.append("GET")
        body = cls.held.get(self.path.rsplit("/", 1)[1])
        self.answer(200, {} if body is None else {
            "allocations": {rp: {**held, "generation": 3}
                            for rp, held in body["allocations"].items()},
            "consumer_generation": 1, "project_id": body["project_id"],
            "user_id": body["user_id"]})


@pytest.fixture
def placement(conf):
    conf.set_override("connect_retry_delay", 0.01, group="placement")
    Consumers.held, Consumers.answers_lost, Consumers.log = {}, 0, []
    with fake_placement.serving(conf, Consumers) as server:
        yield server


def _claim(project_id: str = "p1") -> Claim:
    return SchedulerReportClient().claim_resources(get_admin_context(), "c1", CLAIM,
                                                   project_id, "u1")


def test_a_claim_whose_answer_was_lost_finds_its_allocations_and_holds(placement):
    Consumers.answers_lost = 1
    assert _claim() is Claim.FOUND
    assert Consumers.log == ["PUT", "PUT", "GET"]


def test_a_consumer_holding_another_allocation_refuses_the_claim(placement):
    Consumers.held["c1"] = {"allocations": {"rp2": {"resources": {"VCPU": 1}}},
                            "project_id": "p1", "user_id": "u1"}
    assert _claim() is Claim.REFUSED


def test_a_consumer_of_another_project_refuses_the_claim(placement):
    assert _claim("p2") is Claim.MADE
    assert _claim() is Claim.REFUSED


def test_a_claim_answered_at_once_reads_nothing(placement):
    assert _claim() is Claim.MADE
    assert Consumers.log == ["PUT"]
