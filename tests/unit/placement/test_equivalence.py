"""The flat SQL path answers exactly what the general search answers, on random flat
topologies and random single-group requests (capacity math, traits, aggregates, limit)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from novalite.api.faults import HTTPFault
from novalite.placement.candidates.request import Options
from tests.unit.placement.helpers import candidates
from tests.unit.placement.topology import Topology

TRAITS = ["CUSTOM_A", "CUSTOM_B", "CUSTOM_C"]
AGGS = ["a1", "a2", "a3"]
CLASSES = ["VCPU", "MEMORY_MB", "DISK_GB"]

inventory = st.fixed_dictionaries({
    "total": st.integers(1, 16), "reserved": st.integers(0, 4),
    "min_unit": st.integers(1, 3), "max_unit": st.integers(1, 16),
    "step_size": st.integers(1, 3), "allocation_ratio": st.sampled_from([0.5, 1.0, 1.5]),
})
provider = st.fixed_dictionaries({
    "inventory": st.dictionaries(st.sampled_from(CLASSES), inventory, max_size=3),
    "used": st.dictionaries(st.sampled_from(CLASSES), st.integers(1, 8), max_size=3),
    "traits": st.lists(st.sampled_from(TRAITS), unique=True, max_size=3),
    "aggs": st.lists(st.sampled_from(AGGS), unique=True, max_size=3),
})


@st.composite
def request_qs(draw) -> str:
    resources = draw(st.dictionaries(st.sampled_from(CLASSES), st.integers(1, 6),
                                     min_size=1, max_size=3))
    suffix = draw(st.sampled_from(["", "1", "_X"]))
    parts = [f"resources{suffix}=" + ",".join(f"{k}:{v}" for k, v in resources.items())]
    for _ in range(draw(st.integers(0, 2))):
        kind = draw(st.sampled_from(["req", "forbid", "any"]))
        names = draw(st.lists(st.sampled_from(TRAITS), min_size=1, max_size=2, unique=True))
        value = {"req": names[0], "forbid": "!" + names[0],
                 "any": "in:" + ",".join(names)}[kind]
        parts.append(f"required{suffix}={value}")
    for _ in range(draw(st.integers(0, 2))):
        aggs = draw(st.lists(st.sampled_from(AGGS), min_size=1, max_size=2, unique=True))
        prefix = draw(st.sampled_from(["", "!"]))
        uuids = ",".join(Topology.agg(a) for a in aggs)
        parts.append(f"member_of{suffix}={prefix}in:{uuids}" if len(aggs) > 1
                     else f"member_of{suffix}={prefix}{uuids}")
    if draw(st.booleans()):
        parts.append(f"root_required={draw(st.sampled_from(TRAITS))}")
    if draw(st.booleans()):
        parts.append(f"limit={draw(st.integers(1, 4))}")
    return "&".join(parts)


@pytest.mark.slow  # a third of the hypothesis profile's examples (tests/conftest.py)
@settings(max_examples=max(1, settings.default.max_examples // 3))
@given(providers=st.lists(provider, min_size=1, max_size=6), qs=request_qs(),
       cap=st.sampled_from([-1, 2]))
def test_flat_path_equals_general_search(db, providers, qs, cap):
    with db.connect() as conn:
        trans = conn.begin()
        topo = Topology(conn)
        for trait in TRAITS:
            topo.trait(trait)
        for n, p in enumerate(providers):
            topo.provider(f"cn{n}", inventory=p["inventory"], traits=p["traits"],
                          aggs=[Topology.agg(a) for a in p["aggs"]])
            for rc, used in p["used"].items():
                if rc in p["inventory"]:
                    topo.allocate(f"cn{n}", rc, used)
        options = Options(max_candidates=cap)
        for version in [(1, 39), (1, 25), (1, 12)]:
            try:
                fast = candidates(topo, qs, version, options)
            except HTTPFault:  # not a valid request at this version
                continue
            full = candidates(topo, qs, version, options, general=True)
            assert fast == full, qs
        trans.rollback()
