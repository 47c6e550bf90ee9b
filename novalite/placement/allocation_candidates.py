"""Allocation candidates: the ways a request for resources can be satisfied, and a
summary of the providers involved. Chooses the flat SQL path when the deployment and
the request allow it, otherwise runs upstream's full semantics over a snapshot."""

from __future__ import annotations

from sqlalchemy.engine import Connection

from novalite.placement.candidates import flat, render, search, snapshot
from novalite.placement.candidates.request import Options, RequestGroup, RequestWideParams


def get(conn: Connection, groups: dict[str, RequestGroup], params: RequestWideParams,
        version: tuple[int, int], options: Options) -> dict:
    """The response body of GET /allocation_candidates at `version` (1.29 and later
    may combine several providers of one tree)."""
    nested, sharing = snapshot.tree_info(conn)
    if flat.applies(groups, nested, sharing):
        result, providers = flat.find(conn, next(iter(groups.values())), params, options)
    else:
        snap = snapshot.load(conn)
        result = search.find(snap, groups, params, version >= (1, 29), options)
        providers = snap.providers
    requested = set().union(*(g.resources for g in groups.values()))
    return render.body(result, providers, requested, version)
