"""The placement client rides out a restart of the placement API: with Nova's [placement]
connect_retries/status_code_retries (6 by default here), a 503 or a refused connection is
retried with backoff instead of failing the build."""

from __future__ import annotations

import pytest

from novalite.clients.placement import SchedulerReportClient
from novalite.context import get_admin_context
from tests.unit.clients import fake_placement


class Restarting(fake_placement.Handler):
    """Answers 503 to the first `unavailable` requests, then an empty allocation set."""

    unavailable = 2
    seen = 0

    def do_GET(self):  # noqa: N802 (http.server's name)
        type(self).seen += 1
        if type(self).seen <= self.unavailable:
            self.answer(503)
            return
        self.answer(200, {"allocations": {}})


@pytest.fixture
def placement(conf):
    conf.set_override("status_code_retry_delay", 0.01, group="placement")
    Restarting.seen = 0
    with fake_placement.serving(conf, Restarting) as server:
        yield server


def test_the_retry_defaults_are_set(conf):
    from novalite.conf import CONF
    assert CONF.placement.connect_retries == 6
    assert CONF.placement.status_code_retries == 6


def test_a_placement_answering_503_for_a_while_is_waited_for(placement):
    got = SchedulerReportClient().get_allocations_for_consumer(get_admin_context(), "c1")
    assert got == {"allocations": {}} and Restarting.seen == 3
