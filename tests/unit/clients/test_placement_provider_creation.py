"""A compute registered by this start creates its providers without looking them up
first; any other looks first. Either way a provider that exists is used as it is."""

from __future__ import annotations

import json

import pytest

from novalite.clients.placement import SchedulerReportClient
from novalite.context import get_admin_context
from tests.unit.clients import fake_placement


class Placement(fake_placement.Handler):
    """At most one provider, rp1; `exists` says whether it is there yet."""

    exists = False
    log: list[tuple[str, str, int]] = []

    def _provider(self) -> dict:
        return {"uuid": "rp1", "name": "node1", "generation": 0}

    def do_GET(self):  # noqa: N802 (http.server's name)
        status = 200 if self.exists else 404
        type(self).log.append(("GET", self.path.rpartition("/")[2], status))
        self.answer(status, self._provider() if self.exists else {"errors": []})

    def do_POST(self):  # noqa: N802
        self.rfile.read(int(self.headers["Content-Length"]))
        status = 409 if self.exists else 200
        type(self).log.append(("POST", "resource_providers", status))
        type(self).exists = True
        self.answer(status, self._provider() if status == 200 else {
            "errors": [{"code": "placement.duplicate_name"}]})

    def do_PUT(self):  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).log.append(("PUT", self.path.rpartition("/")[2], 200))
        self.answer(200, {"resource_provider_generation":
                          body["resource_provider_generation"] + 1})


@pytest.fixture
def placement(conf):
    Placement.exists, Placement.log = False, []
    with fake_placement.serving(conf, Placement) as server:
        yield server


def _report(probably_new: bool) -> None:
    assert SchedulerReportClient().update_provider(
        get_admin_context(), "rp1", "node1", {"VCPU": {"total": 8}}, {"HW_CPU_X86_AVX"},
        probably_new=probably_new)


def test_a_new_hosts_provider_is_created_without_a_lookup(placement):
    _report(probably_new=True)
    assert Placement.log == [("POST", "resource_providers", 200),
                             ("PUT", "inventories", 200), ("PUT", "traits", 200)]


def test_a_provider_that_exists_after_all_is_read_and_used(placement):
    Placement.exists = True
    _report(probably_new=True)
    assert Placement.log == [("POST", "resource_providers", 409), ("GET", "rp1", 200),
                             ("PUT", "inventories", 200), ("PUT", "traits", 200)]


@pytest.mark.parametrize("exists", [True, False])
def test_a_known_host_looks_its_provider_up_first(placement, exists):
    Placement.exists = exists
    _report(probably_new=False)
    looked = [("GET", "rp1", 200 if exists else 404)]
    created = [] if exists else [("POST", "resource_providers", 200)]
    assert Placement.log == [*looked, *created, ("PUT", "inventories", 200),
                             ("PUT", "traits", 200)]
