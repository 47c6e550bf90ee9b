"""Upstream Placement's allocation-candidate semantics over a snapshot of providers.

Each request group yields its own candidates, each anchored at a root provider: a
suffixed group one provider at a time; the unsuffixed group any combination of
providers of one tree plus the providers sharing with that tree through an aggregate.
Candidates of all groups with the same anchor are then combined (the cartesian product,
in [placement] allocation_candidates_generation_strategy order), kept when they honour
group_policy, same_subtree and the providers' capacity, and de-duplicated.
"""

from __future__ import annotations

import dataclasses
import itertools
import random
from collections import defaultdict
from collections.abc import Iterator

from novalite.placement.candidates.request import (
    Options,
    RequestGroup,
    RequestWideParams,
    ResourceClassNotFound,
    TraitNotFound,
)
from novalite.placement.candidates.snapshot import Provider, Snapshot


@dataclasses.dataclass(frozen=True, slots=True)
class GroupCandidate:
    """One way to satisfy one group: (provider id, class, amount) triples."""

    anchor: int
    suffix: str
    resources: tuple[tuple[int, str, int], ...]
    providers: frozenset[int]


@dataclasses.dataclass(slots=True)
class Candidate:
    """One allocation request satisfying every group."""

    allocations: dict[int, dict[str, int]]
    mappings: dict[str, list[int]]

    def providers(self) -> set[int]:
        return set(self.allocations)


@dataclasses.dataclass
class Result:
    candidates: list[Candidate]
    summaries: list[int]  # provider ids, in provider order


def check_names(snap: Snapshot, groups: dict[str, RequestGroup],
                params: RequestWideParams) -> None:
    """Unknown classes and traits are the caller's error, named as upstream names them."""
    for trait in sorted(params.root_required) + sorted(params.root_forbidden):
        if trait not in snap.traits:
            raise TraitNotFound(trait)
    for group in groups.values():
        for rc in group.resources:
            if rc not in snap.resource_classes:
                raise ResourceClassNotFound(rc)
        for trait in sorted(group.trait_names()):
            if trait not in snap.traits:
                raise TraitNotFound(trait)


class Search:
    def __init__(self, snap: Snapshot, params: RequestWideParams) -> None:
        self.snap = snap
        self.params = params
        self.sharing = snap.sharing()
        self.has_trees = snap.has_trees
        self.anchors = self._anchor_filter()
        roots_by_agg: dict[str, set[int]] = defaultdict(set)
        for p in snap.providers.values():
            for agg in p.aggregates:
                roots_by_agg[agg].add(p.root_id)
        self.roots_by_agg = roots_by_agg

    def _anchor_filter(self) -> set[int] | None:
        """Root providers allowed to anchor a candidate (root_required), None for all."""
        need, deny = self.params.root_required, self.params.root_forbidden
        if not (need or deny):
            return None
        return {p.id for p in self.snap.providers.values()
                if p.parent_id is None and need <= p.traits and not deny & p.traits}

    def sharing_anchors(self, rp: Provider) -> set[int]:
        """Roots of every tree that shares an aggregate with a sharing provider."""
        return set().union(*(self.roots_by_agg[a] for a in rp.aggregates))

    # -- one group ---------------------------------------------------------------------

    def group(self, group: RequestGroup) -> list[GroupCandidate]:
        snap = self.snap
        in_aggs = None
        if group.member_of:
            in_aggs = {p.id for p in snap.providers.values()
                       if all(p.aggregates & s for s in group.member_of)}
            if not in_aggs:
                return []
        tree = None
        if group.in_tree:
            found = [p for p in snap.providers.values() if p.uuid == group.in_tree]
            if not found:
                return []
            tree = found[0].root_id
        with_resource = {}
        for rc, amount in group.resources.items():
            with_resource[rc] = [
                p.id for p in snap.providers.values()
                if (inv := p.inventories.get(rc)) is not None and inv.fits(amount)
                and (tree is None or p.root_id == tree)]
            if not with_resource[rc]:
                return []
        if group.use_same_provider or not (self.sharing or self.has_trees):
            return self._single(group, in_aggs, tree, with_resource)
        return self._spread(group, in_aggs, tree, with_resource)

    def _single(self, group: RequestGroup, in_aggs: set[int] | None, tree: int | None,
                with_resource: dict[str, list[int]]) -> list[GroupCandidate]:
        if with_resource:
            ids = set.intersection(*(set(v) for v in with_resource.values()))
        else:
            ids = {p.id for p in self.snap.providers.values()
                   if tree is None or p.root_id == tree}
        out = []
        for rp_id in sorted(ids):
            rp = self.snap.providers[rp_id]
            if not (all(any_of & rp.traits for any_of in group.required)
                    and not group.forbidden & rp.traits
                    and not group.forbidden_aggs & rp.aggregates
                    and (in_aggs is None or rp_id in in_aggs)):
                continue
            resources = tuple((rp_id, rc, n) for rc, n in group.resources.items())
            anchors = [rp.root_id]
            if rp_id in self.sharing:
                anchors += sorted(self.sharing_anchors(rp) - {rp.root_id})
            out += [GroupCandidate(a, group.suffix, resources, frozenset([rp_id]))
                    for a in anchors if self.anchors is None or a in self.anchors]
        return out

    def _spread(self, group: RequestGroup, in_aggs: set[int] | None, tree: int | None,
                with_resource: dict[str, list[int]]) -> list[GroupCandidate]:
        providers = self.snap.providers
        bad_aggs = {p.id for p in providers.values() if p.aggregates & group.forbidden_aggs}
        found: set[tuple[int, int, str]] = set()  # (provider, anchor root, class)
        for rc in group.resources:
            pairs = {(i, providers[i].root_id) for i in with_resource[rc]}
            shared = self.sharing.intersection(with_resource[rc])
            if in_aggs is not None:
                shared &= in_aggs
            if shared and tree is None:
                pairs |= {(i, a) for i in shared for a in self.sharing_anchors(providers[i])}
            pairs = {(i, a) for i, a in pairs
                     if (self.anchors is None or a in self.anchors)
                     and (in_aggs is None or i in in_aggs or a in in_aggs)
                     and not (i in bad_aggs or a in bad_aggs)}
            if not pairs:
                return []
            if found:
                common = {a for _, a, _ in found} & {a for _, a in pairs}
                found = {f for f in found if f[1] in common}
                found |= {(i, a, rc) for i, a in pairs if a in common}
            else:
                found = {(i, a, rc) for i, a in pairs}
            if not found:
                return []
        by_anchor: dict[int, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
        for i, a, rc in sorted(found):
            by_anchor[a][rc].append(i)
        out = []
        for anchor in sorted(by_anchor):
            choices = [by_anchor[anchor][rc] for rc in group.resources]
            for picked in itertools.product(*choices):
                if self._traits_ok(group, picked):
                    out.append(GroupCandidate(
                        anchor, group.suffix,
                        tuple((i, rc, n) for i, (rc, n) in zip(
                            picked, group.resources.items(), strict=True)),
                        frozenset(picked)))
        return out

    def _traits_ok(self, group: RequestGroup, picked: tuple[int, ...]) -> bool:
        """Traits are satisfied by the picked providers together; none may be
        forbidden."""
        traits: set[str] = set()
        for i in picked:
            own = self.snap.providers[i].traits
            if own & group.forbidden:
                return False
            traits |= own
        return all(any_of & traits for any_of in group.required)

    # -- all groups together -----------------------------------------------------------

    def merge(self, per_group: dict[str, list[GroupCandidate]],
              options: Options) -> list[Candidate]:
        by_anchor: dict[int, dict[str, list[GroupCandidate]]] = defaultdict(
            lambda: defaultdict(list))
        for suffix, cands in per_group.items():
            for c in cands:
                by_anchor[c.anchor][suffix].append(c)
        gens = [self._combinations([lists[s] for s in per_group])
                for lists in by_anchor.values() if len(lists) == len(per_group)]
        ordered = (itertools.chain(*gens) if options.strategy == "depth-first"
                   else _roundrobin(gens))
        granular = sum(1 for s in per_group if s)
        seen: dict[tuple, Candidate] = {}
        for combo in ordered:
            if not (self._isolated(combo, granular) and self._same_subtree(combo)):
                continue
            cand = _consolidate(combo)
            key = (frozenset((i, rc, n) for i, r in cand.allocations.items()
                             for rc, n in r.items()),
                   frozenset((s, frozenset(v)) for s, v in cand.mappings.items()))
            seen.setdefault(key, cand)
            if 0 <= options.max_candidates <= len(seen):
                break
        return list(seen.values())

    def _combinations(self, lists: list[list[GroupCandidate]]) -> Iterator[tuple]:
        """The product of the groups' candidates, pruned as soon as a prefix asks a
        provider for more than it has left (or more than its max_unit at once)."""
        providers = self.snap.providers

        def walk(level: int, prefix: tuple, taken: dict) -> Iterator[tuple]:
            if level == len(lists):
                yield prefix
                return
            for cand in lists[level]:
                now = dict(taken)
                fits = True
                for i, rc, n in cand.resources:
                    now[(i, rc)] = total = now.get((i, rc), 0) + n
                    inv = providers[i].inventories[rc]
                    if not inv.has_room(total) or total > inv.max_unit:
                        fits = False
                        break
                if fits:
                    yield from walk(level + 1, prefix + (cand,), now)

        return walk(0, (), {})

    def _isolated(self, combo: tuple[GroupCandidate, ...], granular: int) -> bool:
        if self.params.group_policy != "isolate":
            return True
        return len(set().union(*(c.providers for c in combo if c.suffix))) == granular

    def _same_subtree(self, combo: tuple[GroupCandidate, ...]) -> bool:
        """Every provider of the listed groups sits under one of them."""
        for suffixes in self.params.same_subtrees:
            ids = set().union(*(c.providers for c in combo if c.suffix in suffixes))
            if len(ids) <= 1:
                continue
            common = set.intersection(*(self.snap.ancestors(i) for i in ids))
            if not common & ids:
                return False
        return True

    # -- the whole request -------------------------------------------------------------

    def summaries(self, candidates: list[Candidate]) -> list[int]:
        providers = self.snap.providers
        roots = {providers[i].root_id for c in candidates for i in c.allocations}
        return [i for i, p in providers.items() if p.root_id in roots]

    def exclude_nested(self, candidates: list[Candidate],
                       summaries: list[int]) -> tuple[list[Candidate], list[int]]:
        """Before 1.29 a candidate may take from one provider per tree only."""
        providers = self.snap.providers
        kept = [c for c in candidates
                if len({providers[i].root_id for i in c.allocations}) == len(c.allocations)]
        used = set().union(*(c.providers() for c in kept))
        return kept, [i for i in summaries if i in used]


def _consolidate(combo: tuple[GroupCandidate, ...]) -> Candidate:
    allocations: dict[int, dict[str, int]] = {}
    mappings: dict[str, list[int]] = {}
    for cand in combo:
        for i, rc, n in cand.resources:
            res = allocations.setdefault(i, {})
            res[rc] = res.get(rc, 0) + n
        mapped = mappings.setdefault(cand.suffix, [])
        mapped += [i for i in sorted(cand.providers) if i not in mapped]
    return Candidate(allocations, mappings)


def _roundrobin(gens: list[Iterator]) -> Iterator:
    active = list(gens)
    while active:
        still = []
        for gen in active:
            try:
                yield next(gen)
                still.append(gen)
            except StopIteration:
                pass
        active = still


def limit(candidates: list[Candidate], summaries: list[int], root_of: dict[int, int],
          count: int | None, randomize: bool) -> tuple[list[Candidate], list[int]]:
    """Keep `count` candidates (the first, or a random sample) and the summaries of
    their trees."""
    if count and count < len(candidates):
        candidates = (random.sample(candidates, count) if randomize
                      else candidates[:count])
        roots = {root_of[i] for c in candidates for i in c.allocations}
        return candidates, [i for i in summaries if root_of[i] in roots]
    if randomize:
        candidates = list(candidates)
        random.shuffle(candidates)
    return candidates, summaries


def find(snap: Snapshot, groups: dict[str, RequestGroup], params: RequestWideParams,
         nested_aware: bool, options: Options) -> Result:
    check_names(snap, groups, params)
    search = Search(snap, params)
    if search.anchors is not None and not search.anchors:
        return Result([], [])
    per_group = {}
    for suffix, group in groups.items():
        per_group[suffix] = search.group(group)
        if not per_group[suffix]:
            return Result([], [])
    candidates = search.merge(per_group, options)
    summaries = search.summaries(candidates)
    if not nested_aware and search.has_trees:
        candidates, summaries = search.exclude_nested(candidates, summaries)
    root_of = {i: p.root_id for i, p in snap.providers.items()}
    candidates, summaries = limit(candidates, summaries, root_of, params.limit,
                                  options.randomize)
    return Result(candidates, summaries)
