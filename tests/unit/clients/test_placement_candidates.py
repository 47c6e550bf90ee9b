"""The scheduler's candidates are read whole in one go, with or without the bodies
logged at debug level (which reads them first), over one kept-alive connection; an
answer that is not placement's is refused saying where it differs."""

from __future__ import annotations

import logging

import pytest

from novalite.clients.placement import PlacementUnavailable, SchedulerReportClient
from novalite.context import get_admin_context
from tests.unit.clients import fake_placement

HOSTS = 2000  # a body of about 300 KB: many of requests' 10 KB reads


class Candidates(fake_placement.Handler):
    protocol_version = "HTTP/1.1"  # keep-alive, as placement's server
    connections = 0

    def setup(self):
        type(self).connections += 1
        super().setup()

    def do_GET(self):  # noqa: N802 (http.server's name)
        if "resources=" not in self.path:
            self.answer(400, {"errors": [{"detail": "no resources asked for"}]})
            return
        if "member_of=" in self.path:  # a proxy's page, or some other service, not placement
            self.answer(200, {"allocation_requests": "maintenance"})
            return
        self.answer(200, {
            "allocation_requests": [
                {"allocations": {f"rp{i}": {"resources": {"VCPU": 1}}}}
                for i in range(HOSTS)],
            "provider_summaries": {
                f"rp{i}": {"resources": {"VCPU": {"capacity": 8, "used": 0}},
                           "traits": ["COMPUTE_IMAGE_TYPE_RAW"], "parent_provider_uuid": None,
                           "root_provider_uuid": f"rp{i}"} for i in range(HOSTS)}})


@pytest.fixture
def placement(conf):
    Candidates.connections = 0
    with fake_placement.serving(conf, Candidates) as server:
        yield server


@pytest.mark.parametrize("bodies_logged", [False, True], ids=["quiet", "debug"])
def test_every_candidate_arrives(placement, bodies_logged, caplog):
    if bodies_logged:
        caplog.set_level(logging.DEBUG, logger="keystoneauth.session")
    client = SchedulerReportClient()
    for _ in range(3):
        candidates = client.get_allocation_candidates(get_admin_context(), "resources=VCPU:1")
        assert len(candidates.requests) == len(candidates.roots) == HOSTS
        assert candidates.roots["rp1999"] == "rp1999"
    assert ("RESP BODY" in caplog.text) == bodies_logged
    assert Candidates.connections == 1


def test_a_refusal_still_says_why(placement):
    with pytest.raises(PlacementUnavailable, match="no resources asked for"):
        SchedulerReportClient().get_allocation_candidates(get_admin_context(), "limit=1")


def test_an_answer_not_shaped_as_placements_says_so(placement):
    with pytest.raises(PlacementUnavailable, match=r"not placement's: Expected `array`, "
                       r"got `str` - at `\$.allocation_requests`"):
        SchedulerReportClient().get_allocation_candidates(
            get_admin_context(), "resources=VCPU:1&member_of=a")
