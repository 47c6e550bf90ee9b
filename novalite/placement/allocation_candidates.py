"""Allocation candidates: the ways a request for resources can be satisfied, and a
summary of the providers involved, as the JSON body of GET /allocation_candidates.
Takes the flat SQL path when the deployment and the request allow it, otherwise runs
upstream's full semantics over a snapshot of the providers."""

from __future__ import annotations

from sqlalchemy.engine import Connection

from novalite.placement.candidates import flat, render, search, snapshot
from novalite.placement.candidates.request import Options, RequestGroup, RequestWideParams


def get(conn: Connection, groups: dict[str, RequestGroup], params: RequestWideParams,
        version: tuple[int, int], options: Options) -> bytes:
    """The response body at `version` (from 1.29 one candidate may combine several
    providers of a tree)."""
    nested, sharing = snapshot.tree_info(conn)
    if flat.applies(groups, nested, sharing):
        return flat.find(conn, next(iter(groups.values())), params, options, version)
    return general(conn, groups, params, version, options)


def general(conn: Connection, groups: dict[str, RequestGroup], params: RequestWideParams,
            version: tuple[int, int], options: Options) -> bytes:
    """Any request on any deployment, over a snapshot of every provider."""
    snap = snapshot.load(conn)
    result = search.find(snap, groups, params, version >= (1, 29), options)
    providers = snap.providers
    uuid = {i: p.uuid for i, p in providers.items()}
    summaries = (render.Summary(
        p.uuid, None if p.parent_id is None else uuid[p.parent_id], uuid[p.root_id],
        [(rc, inv.capacity, inv.used) for rc, inv in p.inventories.items()],
        sorted(p.traits)) for p in (providers[i] for i in result.summaries))
    requested = set().union(*(g.resources for g in groups.values()))
    return render.body(render.requests(result.candidates, uuid, version),
                       render.summaries(summaries, requested, version))
