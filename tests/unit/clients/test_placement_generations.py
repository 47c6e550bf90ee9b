"""A compute's report writes with the generation placement last answered, reading the
provider again only when another writer got there first (a 409 concurrent_update)."""

from __future__ import annotations

import json

import pytest

from novalite.clients.placement import SchedulerReportClient
from novalite.context import get_admin_context
from tests.unit.clients import fake_placement


class Provider(fake_placement.Handler):
    """One provider at `generation`; each accepted write bumps it; `claims_between`
    writes are refused once as if a claim had bumped it first (the next ones, or those
    to a path ending in `claimed_before`). As placement, a 409 names its error code
    only from microversion 1.23."""

    generation = 5
    claims_between = 0
    claimed_before = ""
    log: list[tuple[str, str, int | None]] = []

    def do_GET(self):  # noqa: N802 (http.server's name)
        type(self).log.append(("GET", self.path, None))
        self.answer(200, {"uuid": "rp1", "name": "node1", "generation": self.generation})

    def do_PUT(self):  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        sent = body["resource_provider_generation"]
        type(self).log.append(("PUT", self.path, sent))
        cls = type(self)
        if cls.claims_between and self.path.endswith(cls.claimed_before):
            cls.claims_between -= 1
            cls.generation += 1
        if sent != cls.generation:
            version = self.headers["OpenStack-API-Version"].split()[-1].split(".")
            coded = (int(version[0]), int(version[1])) >= (1, 23)
            self.answer(409, {"errors": [{"code": "placement.concurrent_update"} if coded
                                         else {"detail": "generation conflict"}]})
            return
        cls.generation += 1
        self.answer(200, {"resource_provider_generation": cls.generation})

@pytest.fixture
def placement(conf):
    Provider.generation, Provider.claims_between, Provider.log = 5, 0, []
    Provider.claimed_before = ""
    with fake_placement.serving(conf, Provider) as server:
        yield server


def _report(client: SchedulerReportClient, total: int) -> None:
    client.update_provider(get_admin_context(), "rp1", "node1",
                           {"VCPU": {"total": total}}, {"HW_CPU_X86_AVX"})


def test_each_write_uses_the_generation_the_previous_answer_gave(placement):
    _report(SchedulerReportClient(), 8)
    assert Provider.log == [("GET", "/resource_providers/rp1", None),
                            ("PUT", "/resource_providers/rp1/inventories", 5),
                            ("PUT", "/resource_providers/rp1/traits", 6)]


def test_a_claim_in_between_costs_one_read_and_the_write_again(placement):
    Provider.claims_between = 1
    _report(SchedulerReportClient(), 8)
    assert [entry[0] for entry in Provider.log] == ["GET", "PUT", "GET", "PUT", "PUT"]
    assert Provider.log[3][2] == 6 and Provider.generation == 8


def test_a_claim_before_the_traits_write_costs_one_read_and_that_write_again(placement):
    """As a restarted compute's report while its queued builds' claims are freed."""
    Provider.claims_between, Provider.claimed_before = 1, "/traits"
    assert SchedulerReportClient().update_provider(
        get_admin_context(), "rp1", "node1", {"VCPU": {"total": 8}}, {"HW_CPU_X86_AVX"})
    assert [(verb, path.rpartition("/")[2]) for verb, path, _ in Provider.log] == [
        ("GET", "rp1"), ("PUT", "inventories"), ("PUT", "traits"), ("GET", "rp1"),
        ("PUT", "traits")]
