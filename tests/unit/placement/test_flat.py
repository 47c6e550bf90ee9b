"""Single-provider candidates: capacity math, filters, limit and ordering, body shapes."""

from __future__ import annotations

import json
from urllib.parse import parse_qsl

import pytest

from novalite.api.placement import allocation_candidates_query as query
from novalite.placement import allocation_candidates
from novalite.placement.candidates import offers
from novalite.placement.candidates.request import Options
from tests.unit.placement.helpers import allocs, candidates, named, provs

COMPUTE = {"VCPU": 8, "MEMORY_MB": 4096, "DISK_GB": 100}


@pytest.fixture(params=[False, True], ids=["flat-path", "general-path"])
def general(request):
    return request.param


def names(topo, qs, general, version=(1, 39), **opts):
    body = candidates(topo, qs, version, Options(**opts), general=general)
    return sorted(sorted(topo.names[u] for u in r["allocations"])[0]
                  for r in body["allocation_requests"])


def test_capacity_counts_reserved_ratio_and_usage(topo, general):
    topo.provider("cn1", inventory={"VCPU": {"total": 8, "reserved": 2,
                                             "allocation_ratio": 2.0, "max_unit": 16}})  # 12
    topo.provider("cn2", inventory={"VCPU": 8})
    topo.allocate("cn2", "VCPU", 4)
    assert names(topo, "resources=VCPU:12", general) == ["cn1"]
    assert names(topo, "resources=VCPU:13", general) == []
    assert names(topo, "resources=VCPU:4", general) == ["cn1", "cn2"]
    assert names(topo, "resources=VCPU:5", general) == ["cn1"]


def test_min_max_unit_and_step_size(topo, general):
    topo.provider("cn1", inventory={"MEMORY_MB": {"total": 4096, "min_unit": 256,
                                                  "max_unit": 2048, "step_size": 256}})
    assert names(topo, "resources=MEMORY_MB:512", general) == ["cn1"]
    assert names(topo, "resources=MEMORY_MB:128", general) == []  # under min_unit
    assert names(topo, "resources=MEMORY_MB:4096", general) == []  # over max_unit
    assert names(topo, "resources=MEMORY_MB:300", general) == []  # not a step


def test_every_requested_class_must_fit(topo, general):
    topo.provider("cn1", inventory=COMPUTE)
    topo.provider("cn2", inventory={"VCPU": 8})
    assert names(topo, "resources=VCPU:1,DISK_GB:10", general) == ["cn1"]


def test_required_forbidden_and_any_of_traits(topo, general):
    topo.provider("cn1", inventory=COMPUTE, traits=["HW_CPU_X86_AVX", "CUSTOM_A"])
    topo.provider("cn2", inventory=COMPUTE, traits=["HW_CPU_X86_AVX"])
    topo.provider("cn3", inventory=COMPUTE, traits=["CUSTOM_B"])
    q = "resources=VCPU:1"
    assert names(topo, f"{q}&required=HW_CPU_X86_AVX", general) == ["cn1", "cn2"]
    assert names(topo, f"{q}&required=HW_CPU_X86_AVX,!CUSTOM_A", general) == ["cn2"]
    assert names(topo, f"{q}&required=!HW_CPU_X86_AVX", general) == ["cn3"]
    assert names(topo, f"{q}&required=in:CUSTOM_A,CUSTOM_B", general) == ["cn1", "cn3"]
    assert names(topo, f"{q}&required=in:CUSTOM_A,CUSTOM_B&required=HW_CPU_X86_AVX",
                 general) == ["cn1"]


def test_member_of_any_all_and_forbidden(topo, general):
    a, b = topo.agg("a"), topo.agg("b")
    topo.provider("cn1", inventory=COMPUTE, aggs=[a])
    topo.provider("cn2", inventory=COMPUTE, aggs=[a, b])
    topo.provider("cn3", inventory=COMPUTE, aggs=[b])
    topo.provider("cn4", inventory=COMPUTE)
    q = "resources=VCPU:1"
    assert names(topo, f"{q}&member_of={a}", general) == ["cn1", "cn2"]
    assert names(topo, f"{q}&member_of=in:{a},{b}", general) == ["cn1", "cn2", "cn3"]
    assert names(topo, f"{q}&member_of={a}&member_of={b}", general) == ["cn2"]
    assert names(topo, f"{q}&member_of=!{a}", general) == ["cn3", "cn4"]
    assert names(topo, f"{q}&member_of=!in:{a},{b}", general) == ["cn4"]
    assert names(topo, f"{q}&member_of={topo.agg('nowhere')}", general) == []


def test_in_tree_and_root_required(topo, general):
    topo.provider("cn1", inventory=COMPUTE, traits=["CUSTOM_GOLD"])
    cn2 = topo.provider("cn2", inventory=COMPUTE)
    q = "resources=VCPU:1"
    assert names(topo, f"{q}&in_tree={cn2}", general) == ["cn2"]
    assert names(topo, f"{q}&in_tree={topo.agg('missing')}", general) == []
    assert names(topo, f"{q}&root_required=CUSTOM_GOLD", general) == ["cn1"]
    assert names(topo, f"{q}&root_required=!CUSTOM_GOLD", general) == ["cn2"]


def test_limit_keeps_the_first_in_provider_order(topo, general):
    for i in range(5):
        topo.provider(f"cn{i}", inventory=COMPUTE)
    body = candidates(topo, "resources=VCPU:1&limit=2", general=general)
    reqs, sums = named(topo, body)
    assert [r[0][0] for r in reqs] == ["cn0", "cn1"]
    assert set(sums) == {"cn0", "cn1"}


def test_randomized_limit_samples_and_summarises_the_sample(topo, general):
    for i in range(6):
        topo.provider(f"cn{i}", inventory=COMPUTE)
    seen = set()
    for _ in range(10):
        body = candidates(topo, "resources=VCPU:1&limit=2", options=Options(randomize=True),
                          general=general)
        reqs, sums = named(topo, body)
        assert len(reqs) == 2 and set(sums) == {r[0][0] for r in reqs}
        seen |= set(sums)
    assert len(seen) > 2


def test_max_allocation_candidates_caps_generation(topo, general):
    for i in range(5):
        topo.provider(f"cn{i}", inventory=COMPUTE)
    assert names(topo, "resources=VCPU:1", general, max_candidates=3) == ["cn0", "cn1", "cn2"]
    assert names(topo, "resources=VCPU:1&limit=2", general, max_candidates=3) == [
        "cn0", "cn1"]


def test_body_shapes_per_microversion(topo, general):
    uuid = topo.provider("cn1", inventory=COMPUTE, traits=["CUSTOM_GOLD"])
    q = "resources=VCPU:1,MEMORY_MB:64"
    old = candidates(topo, q, (1, 10), general=general)
    assert old["allocation_requests"] == [{"allocations": [
        {"resource_provider": {"uuid": uuid}, "resources": {"VCPU": 1, "MEMORY_MB": 64}}]}]
    assert old["provider_summaries"] == {uuid: {"resources": {
        "VCPU": {"capacity": 8, "used": 0}, "MEMORY_MB": {"capacity": 4096, "used": 0}}}}
    v12 = candidates(topo, q, (1, 12), general=general)
    assert v12["allocation_requests"] == [
        {"allocations": {uuid: {"resources": {"VCPU": 1, "MEMORY_MB": 64}}}}]
    assert candidates(topo, q, (1, 17), general=general)["provider_summaries"][uuid][
        "traits"] == ["CUSTOM_GOLD"]
    assert set(candidates(topo, q, (1, 27), general=general)["provider_summaries"][uuid][
        "resources"]) == {"VCPU", "MEMORY_MB", "DISK_GB"}
    v29 = candidates(topo, q, (1, 29), general=general)["provider_summaries"][uuid]
    assert v29["parent_provider_uuid"] is None and v29["root_provider_uuid"] == uuid
    v34 = candidates(topo, q, (1, 34), general=general)["allocation_requests"][0]
    assert v34["mappings"] == {"": [uuid]}


@pytest.mark.parametrize("randomize", [False, True], ids=["first", "sampled"])
def test_summaries_carry_their_own_traits(topo, randomize):
    for i in range(8):
        topo.provider(f"cn{i}", inventory=COMPUTE, traits=[f"CUSTOM_T{i}", "CUSTOM_ALL"])
    body = candidates(topo, "resources=VCPU:1&limit=4", options=Options(randomize=randomize))
    _, sums = named(topo, body)
    assert len(sums) == 4
    for name, summary in sums.items():
        assert summary["traits"] == sorted([f"CUSTOM_T{name[2:]}", "CUSTOM_ALL"])


def test_offers_are_read_in_batches_on_every_backend(backend_db, monkeypatch):
    """Generations come from the DB-API cursor a batch at a time, each driver's own way,
    and a stale batch's offers are read beside the open cursor."""
    from novalite.db import session
    from tests.unit.placement.topology import Topology

    monkeypatch.setattr(offers, "_BATCH", 2)
    with session.writer() as s:
        topo = Topology(s.connection())
        for i in range(5):
            topo.provider(f"cn{i}", inventory=COMPUTE, traits=[f"CUSTOM_T{i}", "CUSTOM_ALL"])
        _, sums = named(topo, candidates(topo, "resources=VCPU:1&limit=3"))
    assert {name: summary["traits"] for name, summary in sums.items()} == {
        f"cn{i}": sorted([f"CUSTOM_T{i}", "CUSTOM_ALL"]) for i in range(3)}


def test_filters_and_the_limit_hold_across_batches_read_or_kept(topo, monkeypatch):
    """Batches of two, some providers denied and one full: the limit stops inside a
    batch, in id order, whether the offers are read (the first query) or kept (the
    second, with nothing changed)."""
    monkeypatch.setattr(offers, "_BATCH", 2)
    for i in range(7):
        vcpu = {"total": 4, "reserved": 4 if i == 2 else 0}  # cn2 full
        topo.provider(f"cn{i}", inventory={"VCPU": vcpu},
                      traits=["CUSTOM_DENIED"] if i in (1, 6) else [])
    groups, params = query.parse(parse_qsl("resources=VCPU:1&required=!CUSTOM_DENIED"
                                           "&limit=3"), (1, 39))
    offers.forget(topo.conn.engine)
    for _ in range(2):
        body = json.loads(allocation_candidates.get(topo.conn, groups, params, (1, 39),
                                                    Options()))
        assert [topo.names[u] for r in body["allocation_requests"]
                for u in r["allocations"]] == ["cn0", "cn3", "cn4"]


def test_suffixed_single_group_maps_its_suffix(topo, general):
    uuid = topo.provider("cn1", inventory=COMPUTE)
    body = candidates(topo, "resources_X=VCPU:1", general=general)
    assert body["allocation_requests"][0]["mappings"] == {"_X": [uuid]}


def test_nothing_found_is_an_empty_body(topo, general):
    topo.provider("cn1", inventory=COMPUTE)
    assert candidates(topo, "resources=VCPU:100", general=general) == {
        "allocation_requests": [], "provider_summaries": {}}


def test_unused_helpers_are_consistent(topo):
    topo.provider("cn1", inventory=COMPUTE)
    assert allocs(topo, "resources=VCPU:1") == [[("cn1", (("VCPU", 1),))]]
    assert provs(topo, "resources=VCPU:1") == [["cn1"]]


def test_nova_query_reads_each_class_name_once(topo):
    """The asked classes' ids come from the names read for the summaries anyway."""
    from novalite.placement.candidates.request import ResourceClassNotFound
    from tests.statements import statements

    topo.provider("cn1", inventory=COMPUTE)
    with statements() as seen:
        candidates(topo, "resources=VCPU:1,MEMORY_MB:512,DISK_GB:10&limit=1000")
    assert sum("FROM resource_classes" in sql for sql in seen) == 1, seen
    with pytest.raises(ResourceClassNotFound, match="CUSTOM_NONE"):
        candidates(topo, "resources=VCPU:1,CUSTOM_NONE:1")
