"""The fast path: one request group on a deployment with neither provider trees nor
sharing providers. Every candidate is then one provider holding all the resources, so
one SQL query finds them, in provider order, and stops at the limit; only the providers
returned are read further for their summaries."""

from __future__ import annotations

import random

from sqlalchemy import and_, exists, func, select
from sqlalchemy.engine import Connection

from novalite.placement.candidates import snapshot as snap_mod
from novalite.placement.candidates.request import (
    Options,
    RequestGroup,
    RequestWideParams,
    ResourceClassNotFound,
    TraitNotFound,
)
from novalite.placement.candidates.search import Candidate, Result
from novalite.placement.candidates.snapshot import (
    AGG,
    ALLOC,
    INV,
    RC,
    RP,
    RP_AGG,
    RP_TRAIT,
    TRAIT,
    Inventory,
    Provider,
)


def applies(groups: dict[str, RequestGroup], nested: bool, sharing: bool) -> bool:
    return len(groups) == 1 and not nested and not sharing


def _ids(conn: Connection, table, names: set[str], missing: type[Exception]) -> dict:
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
    sel = select(RP.c.id, RP.c.uuid)
    conds = []
    for rc, amount in group.resources.items():
        inv = INV.alias(f"inv_{len(conds)}")
        used = (select(func.coalesce(func.sum(ALLOC.c.used), 0))
                .where(ALLOC.c.resource_provider_id == RP.c.id,
                       ALLOC.c.resource_class_id == rc_ids[rc]).scalar_subquery())
        sel = sel.join(inv, and_(inv.c.resource_provider_id == RP.c.id,
                                 inv.c.resource_class_id == rc_ids[rc]))
        conds += [used + amount <= (inv.c.total - inv.c.reserved) * inv.c.allocation_ratio,
                  inv.c.min_unit <= amount, inv.c.max_unit >= amount,
                  amount % inv.c.step_size == 0]
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
    return sel.where(*conds).order_by(RP.c.id)


def find(conn: Connection, group: RequestGroup, params: RequestWideParams,
         options: Options) -> tuple[Result, dict[int, Provider]]:
    sel = query(conn, group, params)
    # Generation stops at max_allocation_candidates; then the limit takes the first
    # (or, randomized, a sample) of what was generated.
    cap = options.max_candidates if options.max_candidates >= 0 else None
    wanted = cap
    if params.limit and not options.randomize:
        wanted = params.limit if cap is None else min(cap, params.limit)
    rows = conn.execute(sel.limit(wanted) if wanted is not None else sel).all()
    if options.randomize:
        rows = (random.sample(rows, params.limit) if params.limit and params.limit < len(rows)
                else random.sample(rows, len(rows)))
    ids = [r[0] for r in rows]
    providers = {i: Provider(i, uuid, None, i) for i, uuid in rows}
    for rp_id, rc, total, reserved, lo, hi, step, ratio, used in snap_mod.inventory_rows(
            conn, ids):
        providers[rp_id].inventories[rc] = Inventory(total, reserved, lo, hi, step, ratio,
                                                     int(used))
    for rp_id, name in snap_mod.trait_rows(conn, ids):
        providers[rp_id].traits.add(name)
    candidates = [Candidate({i: dict(group.resources)}, {group.suffix: [i]}) for i in ids]
    return Result(candidates, sorted(ids)), providers
