"""The providers a search looks at, read set-wise in a handful of queries: no ORM
objects, one row per inventory with its usage already summed by the database."""

from __future__ import annotations

import dataclasses

from sqlalchemy import func, select
from sqlalchemy.engine import Connection

from novalite.db.models import placement as m
from novalite.placement import capacity
from novalite.placement.candidates.request import SHARES_VIA_AGGREGATE

RP = m.ResourceProvider.__table__
INV = m.Inventory.__table__
ALLOC = m.Allocation.__table__
RC = m.ResourceClass.__table__
TRAIT = m.Trait.__table__
RP_TRAIT = m.ResourceProviderTrait.__table__
AGG = m.PlacementAggregate.__table__
RP_AGG = m.ResourceProviderAggregate.__table__


@dataclasses.dataclass(slots=True)
class Inventory:
    total: int
    reserved: int
    min_unit: int
    max_unit: int
    step_size: int
    allocation_ratio: float
    used: int

    @property
    def capacity(self) -> int:
        return int(capacity.capacity(self.total, self.reserved, self.allocation_ratio))

    def has_room(self, amount: int) -> bool:
        """Whether `amount` more fits the capacity (units aside)."""
        return capacity.has_room(self.used, amount, self.total, self.reserved,
                                 self.allocation_ratio)

    def fits(self, amount: int) -> bool:
        """Whether one more allocation of `amount` is allowed (upstream's check)."""
        return self.has_room(amount) and capacity.within_units(
            amount, self.min_unit, self.max_unit, self.step_size)


@dataclasses.dataclass(slots=True)
class Provider:
    id: int
    uuid: str
    parent_id: int | None
    root_id: int
    inventories: dict[str, Inventory] = dataclasses.field(default_factory=dict)
    traits: set[str] = dataclasses.field(default_factory=set)
    aggregates: set[str] = dataclasses.field(default_factory=set)


@dataclasses.dataclass
class Snapshot:
    providers: dict[int, Provider]
    resource_classes: set[str]
    traits: set[str]

    @property
    def has_trees(self) -> bool:
        return any(p.parent_id is not None for p in self.providers.values())

    def sharing(self) -> set[int]:
        return {i for i, p in self.providers.items() if SHARES_VIA_AGGREGATE in p.traits}

    def ancestors(self, rp_id: int) -> set[int]:
        """The provider and every provider above it."""
        out = {rp_id}
        parent = self.providers[rp_id].parent_id
        while parent is not None:
            out.add(parent)
            parent = self.providers[parent].parent_id
        return out


def names(conn: Connection) -> tuple[set[str], set[str]]:
    """Every resource class and trait name known."""
    return ({r[0] for r in conn.execute(select(RC.c.name))},
            {r[0] for r in conn.execute(select(TRAIT.c.name))})


def inventory_rows(conn: Connection, rp_ids: list[int] | None = None) -> list:
    """(rp id, class name, total, reserved, min, max, step, ratio, used) per inventory,
    of the given providers or of all. Usage is a correlated sum over the allocations
    index, so asking for a few providers reads only theirs."""
    used = (select(func.coalesce(func.sum(ALLOC.c.used), 0))
            .where(ALLOC.c.resource_provider_id == INV.c.resource_provider_id,
                   ALLOC.c.resource_class_id == INV.c.resource_class_id)
            .scalar_subquery())
    query = (select(INV.c.resource_provider_id, RC.c.name, INV.c.total, INV.c.reserved,
                    INV.c.min_unit, INV.c.max_unit, INV.c.step_size,
                    INV.c.allocation_ratio, used)
             .join(RC, RC.c.id == INV.c.resource_class_id))
    return _chunked(conn, query, INV.c.resource_provider_id, rp_ids)


def _chunked(conn: Connection, query, column, ids: list[int] | None) -> list:
    """Run `query` for all rows, or for the given ids a bounded number at a time (bind
    parameter limits)."""
    if ids is None:
        return list(conn.execute(query).all())
    rows: list = []
    for start in range(0, len(ids), 500):
        rows += conn.execute(query.where(column.in_(ids[start:start + 500]))).all()
    return rows


def trait_rows(conn: Connection, rp_ids: list[int] | None = None) -> list:
    query = select(RP_TRAIT.c.resource_provider_id, TRAIT.c.name).join(
        TRAIT, TRAIT.c.id == RP_TRAIT.c.trait_id)
    return _chunked(conn, query, RP_TRAIT.c.resource_provider_id, rp_ids)


def load(conn: Connection) -> Snapshot:
    """Every provider with its inventories, usage, traits and aggregates."""
    providers = {
        r.id: Provider(r.id, r.uuid, r.parent_provider_id, r.root_provider_id or r.id)
        for r in conn.execute(select(RP.c.id, RP.c.uuid, RP.c.parent_provider_id,
                                     RP.c.root_provider_id))}
    for rp_id, rc, total, reserved, lo, hi, step, ratio, used in inventory_rows(conn):
        providers[rp_id].inventories[rc] = Inventory(total, reserved, lo, hi, step, ratio,
                                                     int(used))
    for rp_id, name in trait_rows(conn):
        providers[rp_id].traits.add(name)
    for rp_id, agg in conn.execute(select(RP_AGG.c.resource_provider_id, AGG.c.uuid).join(
            AGG, AGG.c.id == RP_AGG.c.aggregate_id)):
        providers[rp_id].aggregates.add(agg)
    rcs, traits = names(conn)
    return Snapshot(providers, rcs, traits)


# Built once: every allocation candidates request asks both.
_NESTED = select(RP.c.id).where(RP.c.parent_provider_id.is_not(None)).limit(1)
_SHARING = (select(RP_TRAIT.c.resource_provider_id)
            .join(TRAIT, TRAIT.c.id == RP_TRAIT.c.trait_id)
            .where(TRAIT.c.name == SHARES_VIA_AGGREGATE).limit(1))


def tree_info(conn: Connection) -> tuple[bool, bool]:
    """(any provider has a parent, any provider shares via aggregate): when both are
    false every candidate is a single provider and the flat path applies."""
    nested = conn.execute(_NESTED).first() is not None
    sharing = conn.execute(_SHARING).first() is not None
    return nested, sharing
