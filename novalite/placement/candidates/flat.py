"""The fast path: one request group on a deployment with neither provider trees nor
sharing providers. Every candidate is then one provider holding all the resources, so
one pass over the providers' offers (inventories, usage and traits, kept between requests
by `offers`), in id order, finds them and stops at the limit; each trait or aggregate
test is one query of provider ids, rather than an EXISTS per provider. The body is
written as text, each provider's summary once per offer."""

from __future__ import annotations

import operator
import random

from sqlalchemy import bindparam, select
from sqlalchemy.engine import Connection

from novalite.placement.candidates import offers, render
from novalite.placement.candidates.request import (
    Options,
    RequestGroup,
    RequestWideParams,
    ResourceClassNotFound,
    TraitNotFound,
)
from novalite.placement.candidates.snapshot import AGG, RC, RP, RP_AGG, RP_TRAIT, TRAIT


def applies(groups: dict[str, RequestGroup], nested: bool, sharing: bool) -> bool:
    return len(groups) == 1 and not nested and not sharing


# Built once (every candidates request runs some), each with the list it tests as one
# expanding parameter.
_TRAIT_IDS = select(TRAIT.c.name, TRAIT.c.id).where(
    TRAIT.c.name.in_(bindparam("names", expanding=True)))
_WITH_TRAITS = select(RP_TRAIT.c.resource_provider_id).where(
    RP_TRAIT.c.trait_id.in_(bindparam("ids", expanding=True)))
_MEMBERS = (select(RP_AGG.c.resource_provider_id)
            .join(AGG, AGG.c.id == RP_AGG.c.aggregate_id)
            .where(AGG.c.uuid.in_(bindparam("uuids", expanding=True))))
_ROOT_OF = select(RP.c.root_provider_id).where(RP.c.uuid == bindparam("uuid"))
_CLASS_NAMES = select(RC.c.id, RC.c.name)


def _trait_ids(conn: Connection, names: set[str]) -> dict[str, int]:
    if not names:
        return {}
    found: dict[str, int] = dict(conn.execute(_TRAIT_IDS, {"names": sorted(names)}).all())
    for name in sorted(names):
        if name not in found:
            raise TraitNotFound(name)
    return found


def _wanted(names: dict[int, str], resources: dict[str, int]) -> dict[int, int]:
    """The amounts asked for by class id, from every class's name (read anyway to name
    the candidates' resources): one statement fewer per query than looking the asked
    classes up apart."""
    ids = {name: rc_id for rc_id, name in names.items()}
    for name in sorted(resources):
        if name not in ids:
            raise ResourceClassNotFound(name)
    return {ids[name]: amount for name, amount in resources.items()}


def _providers_with(conn: Connection, trait_ids: list[int]) -> set[int]:
    return set(conn.execute(_WITH_TRAITS, {"ids": trait_ids}).scalars())


def _members_of(conn: Connection, agg_uuids: set[str]) -> set[int]:
    return set(conn.execute(_MEMBERS, {"uuids": sorted(agg_uuids)}).scalars())


def _allowed(conn: Connection, group: RequestGroup, params: RequestWideParams,
             trait_ids: dict) -> tuple[set[int] | None, set[int]]:
    """(providers every trait/aggregate/tree test admits, or None for all; providers
    excluded), each test one indexed query of ids rather than a per-provider EXISTS."""
    allowed: set[int] | None = None

    def narrow(ids: set[int]) -> None:
        nonlocal allowed
        allowed = ids if allowed is None else allowed & ids

    for any_of in group.required:
        narrow(_providers_with(conn, [trait_ids[t] for t in any_of]))
    for trait in params.root_required:  # a flat provider is its own root
        narrow(_providers_with(conn, [trait_ids[trait]]))
    for aggs in group.member_of:
        narrow(_members_of(conn, aggs))
    if group.in_tree:
        narrow(set(conn.execute(_ROOT_OF, {"uuid": group.in_tree}).scalars()))
    denied = group.forbidden | params.root_forbidden
    excluded = _providers_with(conn, [trait_ids[t] for t in denied]) if denied else set()
    if group.forbidden_aggs:
        excluded |= _members_of(conn, group.forbidden_aggs)
    return allowed, excluded


def _candidates(conn: Connection, group: RequestGroup, params: RequestWideParams,
                stop: int | None) -> tuple[list[tuple[int, offers.Offer]], dict[int, str]]:
    """(id, offer) of the providers satisfying the group, in id order, at most `stop` of
    them; and every class's name by id."""
    trait_ids = _trait_ids(conn, params.root_required | params.root_forbidden)
    names = dict(conn.execute(_CLASS_NAMES).all())
    wanted = _wanted(names, group.resources)
    trait_ids |= _trait_ids(conn, group.trait_names())
    allowed, excluded = _allowed(conn, group, params, trait_ids)
    asked = tuple(sorted(wanted.items()))
    found: list[tuple[int, offers.Offer]] = []
    every = offers.in_id_order(conn)
    try:
        for batch in every:
            if allowed is not None or excluded:
                batch = [pair for pair in batch if pair[0] not in excluded
                         and (allowed is None or pair[0] in allowed)]
            found += [pair for pair in batch if pair[1].admits(asked)]
            if stop is not None and len(found) >= stop:
                del found[stop:]
                break
    finally:
        every.close()
    return found, names


def _summaries(chosen: list[tuple[int, offers.Offer]], names: dict[int, str],
               requested: set[str], version: tuple[int, int]) -> str:
    """The chosen providers' summaries, each written once per view of its offer."""
    shown = render.view(requested, version)
    texts = []
    for _, offer in chosen:
        text = offer.summaries.get(shown)
        if text is None:
            text = offer.summaries[shown] = render.summary(render.Summary(
                offer.uuid, None, offer.uuid,
                [(names[rc], kept.capacity, kept.used) for rc, kept in offer.classes.items()],
                offer.traits), shown)
        texts.append(text)
    return ",".join(texts)


def find(conn: Connection, group: RequestGroup, params: RequestWideParams,
         options: Options, version: tuple[int, int]) -> bytes:
    # Generation stops at max_allocation_candidates; the limit then takes the first (or,
    # randomized, a sample) of what was generated.
    stop = options.max_candidates if options.max_candidates >= 0 else None
    if params.limit and not options.randomize and (stop is None or params.limit < stop):
        stop = params.limit
    chosen, names = _candidates(conn, group, params, stop)
    if options.randomize:
        chosen = random.sample(chosen, min(params.limit or len(chosen), len(chosen)))
    uuids = [offer.uuid for _, offer in chosen]
    if options.randomize:
        chosen.sort(key=operator.itemgetter(0))
    return render.body(
        render.single_provider_requests(uuids, group.resources, group.suffix, version),
        _summaries(chosen, names, set(group.resources), version))
