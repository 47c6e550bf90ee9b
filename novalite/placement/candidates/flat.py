"""The fast path: one request group on a deployment with neither provider trees nor
sharing providers. Every candidate is then one provider holding all the resources, so
one SQL query finds them, in provider order, stopping at the limit; the inventories and
traits of just those providers are then read with that query as a subquery, and the
body is written as text. No per-provider objects are made."""

from __future__ import annotations

import random
from collections import defaultdict

from sqlalchemy import exists, func, select
from sqlalchemy.engine import Connection

from novalite.placement.candidates import render
from novalite.placement.candidates.request import (
    Options,
    RequestGroup,
    RequestWideParams,
    ResourceClassNotFound,
    TraitNotFound,
)
from novalite.placement.candidates.snapshot import (
    AGG,
    ALLOC,
    INV,
    RC,
    RP,
    RP_AGG,
    RP_TRAIT,
    TRAIT,
)

_NO_LIMIT = 2**31 - 1


def applies(groups: dict[str, RequestGroup], nested: bool, sharing: bool) -> bool:
    return len(groups) == 1 and not nested and not sharing


def _ids(conn: Connection, table, names: set[str], missing: type[Exception]) -> dict:
    if not names:
        return {}
    found = dict(conn.execute(select(table.c.name, table.c.id)
                              .where(table.c.name.in_(sorted(names)))).all())
    for name in sorted(names):
        if name not in found:
            raise missing(name)
    return found


def _has_trait(trait_ids: list[int]):
    return exists().where(RP_TRAIT.c.resource_provider_id == RP.c.id,
                          RP_TRAIT.c.trait_id.in_(trait_ids))


def _in_aggregate(agg_uuids: set[str]):
    return exists().where(
        RP_AGG.c.resource_provider_id == RP.c.id,
        RP_AGG.c.aggregate_id.in_(select(AGG.c.id).where(AGG.c.uuid.in_(sorted(agg_uuids)))))


def query(conn: Connection, group: RequestGroup, params: RequestWideParams):
    """The providers satisfying the group, as a select of (id, uuid) in id order."""
    trait_ids = _ids(conn, TRAIT, params.root_required | params.root_forbidden,
                     TraitNotFound)
    rc_ids = _ids(conn, RC, set(group.resources), ResourceClassNotFound)
    trait_ids |= _ids(conn, TRAIT, group.trait_names(), TraitNotFound)
    # Only resource_providers in FROM, every test an EXISTS: the database then walks
    # providers in id order and can stop at the limit (a join would let SQLite drive
    # from an inventory index and sort every match first).
    conds = []
    for rc, amount in group.resources.items():
        conds.append(exists().where(
            INV.c.resource_provider_id == RP.c.id, INV.c.resource_class_id == rc_ids[rc],
            _usage() + amount <= (INV.c.total - INV.c.reserved) * INV.c.allocation_ratio,
            INV.c.min_unit <= amount, INV.c.max_unit >= amount,
            amount % INV.c.step_size == 0))
    for any_of in group.required:
        conds.append(_has_trait([trait_ids[t] for t in any_of]))
    for trait in params.root_required:  # a flat provider is its own root
        conds.append(_has_trait([trait_ids[trait]]))
    denied = group.forbidden | params.root_forbidden
    if denied:
        conds.append(~_has_trait([trait_ids[t] for t in denied]))
    for aggs in group.member_of:
        conds.append(_in_aggregate(aggs))
    if group.forbidden_aggs:
        conds.append(~_in_aggregate(group.forbidden_aggs))
    if group.in_tree:
        conds.append(RP.c.id.in_(select(RP.c.root_provider_id)
                                 .where(RP.c.uuid == group.in_tree).scalar_subquery()))
    return select(RP.c.id, RP.c.uuid).where(*conds).order_by(RP.c.id)


def _usage():
    return (select(func.coalesce(func.sum(ALLOC.c.used), 0))
            .where(ALLOC.c.resource_provider_id == INV.c.resource_provider_id,
                   ALLOC.c.resource_class_id == INV.c.resource_class_id)
            .correlate(INV).scalar_subquery())


def _rows(conn: Connection, chosen, with_traits: bool) -> tuple[list, list]:
    """(id, uuid, class, total, reserved, ratio, used) per inventory of the chosen
    providers in id order, and their (id, trait) rows; `chosen` is a subquery of
    (id, uuid)."""
    inv = conn.execute(
        select(chosen.c.id, chosen.c.uuid, RC.c.name, INV.c.total, INV.c.reserved,
               INV.c.allocation_ratio, _usage())
        .select_from(chosen.join(INV, INV.c.resource_provider_id == chosen.c.id)
                     .join(RC, RC.c.id == INV.c.resource_class_id))
        .order_by(chosen.c.id)).all()
    if not with_traits:
        return inv, []
    traits = conn.execute(
        select(RP_TRAIT.c.resource_provider_id, TRAIT.c.name)
        .select_from(chosen.join(RP_TRAIT, RP_TRAIT.c.resource_provider_id == chosen.c.id)
                     .join(TRAIT, TRAIT.c.id == RP_TRAIT.c.trait_id))).all()
    return inv, traits


def _sampled_rows(conn: Connection, sel, count: int | None,
                  with_traits: bool) -> tuple[list, list, list[str]]:
    """Randomized: every candidate is read, `count` are sampled, then only those are
    read in detail, a bounded number of ids at a time."""
    rows = conn.execute(sel).all()
    rows = random.sample(rows, min(count or len(rows), len(rows)))
    inv: list = []
    traits: list = []
    for start in range(0, len(rows), 500):
        chunk = select(RP.c.id, RP.c.uuid).where(
            RP.c.id.in_([r[0] for r in rows[start:start + 500]])).subquery()
        more_inv, more_traits = _rows(conn, chunk, with_traits)
        inv += more_inv
        traits += more_traits
    return inv, traits, [r[1] for r in rows]


def find(conn: Connection, group: RequestGroup, params: RequestWideParams,
         options: Options, version: tuple[int, int]) -> bytes:
    sel = query(conn, group, params)
    # Generation stops at max_allocation_candidates; the limit then takes the first (or,
    # randomized, a sample) of what was generated.
    cap = options.max_candidates if options.max_candidates >= 0 else None
    if cap is not None:
        sel = sel.limit(cap)
    with_traits = version >= (1, 17)
    if options.randomize:
        inv_rows, trait_rows, order = _sampled_rows(conn, sel, params.limit, with_traits)
    else:
        if params.limit and (cap is None or params.limit < cap):
            sel = sel.limit(params.limit)
        elif cap is None:
            # A limited subquery is not flattened into the outer join: the candidates are
            # found once, then their inventories by index, instead of testing every
            # inventory row against the candidate conditions.
            sel = sel.limit(_NO_LIMIT)
        inv_rows, trait_rows = _rows(conn, sel.subquery(), with_traits)
        order = None
    traits: dict[int, list] = defaultdict(list)
    for rp_id, name in trait_rows:
        traits[rp_id].append(name)
    summaries: list[render.Summary] = []
    last = None
    for rp_id, uuid, rc, total, reserved, ratio, used in inv_rows:
        if rp_id != last:
            last = rp_id
            summaries.append(render.Summary(uuid, None, uuid, [], sorted(traits[rp_id])))
        summaries[-1].resources.append((rc, int((total - reserved) * ratio), int(used)))
    uuids = order if order is not None else [s.uuid for s in summaries]
    return render.body(
        render.single_provider_requests(uuids, group.resources, group.suffix, version),
        render.summaries(summaries, set(group.resources), version))
