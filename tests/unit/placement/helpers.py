"""Run a GET /allocation_candidates query string against a topology, in names."""

from __future__ import annotations

import json
from urllib.parse import parse_qsl

from novalite.api.placement import allocation_candidates_query as query
from novalite.placement import allocation_candidates
from novalite.placement.candidates import offers
from novalite.placement.candidates.request import Options
from tests.unit.placement.topology import Topology


def candidates(topo: Topology, qs: str, version: tuple[int, int] = (1, 39),
               options: Options | None = None, general: bool = False) -> dict:
    """The body; `general` forces the full search where the flat path would apply."""
    groups, params = query.parse(parse_qsl(qs, keep_blank_values=True), version)
    offers.forget(topo.conn.engine)  # the topology's rows bypass placement's writers
    run = allocation_candidates.general if general else allocation_candidates.get
    return json.loads(run(topo.conn, groups, params, version, options or Options()))


def named(topo: Topology, body: dict) -> tuple[list, dict]:
    """Allocation requests as sorted {name: resources} and summaries keyed by name
    (1.12+ bodies)."""
    n = topo.names
    reqs = sorted((sorted((n[u], tuple(sorted(a["resources"].items())))
                          for u, a in r["allocations"].items()))
                  for r in body["allocation_requests"])
    sums = {n[u]: s for u, s in body["provider_summaries"].items()}
    return reqs, sums


def allocs(topo: Topology, qs: str, version: tuple[int, int] = (1, 39), **opts) -> list:
    """Just the allocation requests, as sorted lists of (provider, resources)."""
    return named(topo, candidates(topo, qs, version, Options(**opts)))[0]


def provs(topo: Topology, qs: str, version: tuple[int, int] = (1, 39), **opts) -> list:
    """Each allocation request as the sorted names of its providers."""
    return sorted(sorted(name for name, _ in req) for req in allocs(topo, qs, version, **opts))
