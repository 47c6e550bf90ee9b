"""Allocations: what each consumer holds from which provider, and the claim itself.

A claim (`replace`) is one short write transaction of a handful of statements:
1. one read of every named provider (and every provider the consumers hold allocations
   on): its generation, its inventories and what *other* consumers use of them;
2. capacity, min_unit/max_unit/step_size checked in Python against that snapshot;
3. the consumers written (generation compare-and-set), their allocations replaced;
4. every touched provider's generation compare-and-set against the value read in 1.
A concurrent claim on the same provider makes step 4 fail; the whole transaction is then
retried from the top (`claim`), so capacity is never exceeded and the caller sees a 409
only after repeated losses. All-or-nothing: any failure rolls back every consumer.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Callable
from typing import Any, TypeVar

from sqlalchemy import Row, bindparam, delete, func, insert, or_, select, update
from sqlalchemy.orm import Session

from novalite.db import session
from novalite.db.models import placement as models
from novalite.placement import capacity, consumer, errors, resource_class
from novalite.timeutils import utcnow

RP = models.ResourceProvider.__table__
INV = models.Inventory.__table__
RC = models.ResourceClass.__table__
ALLOC = models.Allocation.__table__
RETRIES = 10
T = TypeVar("T")

_USED_BY_OTHERS = (
    select(func.coalesce(func.sum(ALLOC.c.used), 0))
    .where(ALLOC.c.resource_provider_id == INV.c.resource_provider_id,
           ALLOC.c.resource_class_id == INV.c.resource_class_id,
           ALLOC.c.consumer_id.not_in(bindparam("others", expanding=True)))
    .scalar_subquery())
_STATE = (
    select(RP.c.id, RP.c.uuid, RP.c.generation, INV.c.resource_class_id, RC.c.name,
           INV.c.total, INV.c.reserved, INV.c.min_unit, INV.c.max_unit, INV.c.step_size,
           INV.c.allocation_ratio, _USED_BY_OTHERS.label("used"))
    .select_from(RP.outerjoin(INV, INV.c.resource_provider_id == RP.c.id)
                 .outerjoin(RC, RC.c.id == INV.c.resource_class_id))
    .where(or_(RP.c.uuid.in_(bindparam("uuids", expanding=True)),
               RP.c.id.in_(select(ALLOC.c.resource_provider_id).where(
                   ALLOC.c.consumer_id.in_(bindparam("consumers", expanding=True)))))))
_DELETE = delete(ALLOC).where(ALLOC.c.consumer_id.in_(bindparam("consumers", expanding=True)))
_INSERT = insert(ALLOC)
_BUMP = (update(RP).where(RP.c.id == bindparam("rp_id"),
                          RP.c.generation == bindparam("gen"))
         .values(generation=bindparam("new_gen")))


class ProviderChanged(errors.ConcurrentUpdate):
    """A provider's generation moved during a claim: retry the claim."""


@dataclasses.dataclass
class Claim:
    """One consumer's whole allocation: {provider uuid: {class: amount}}; empty = none."""

    consumer_uuid: str
    resources: dict[str, dict[str, int]]
    project_id: str | None = None
    user_id: str | None = None
    generation: int | None = None
    check_generation: bool = False
    consumer_type: str | None = None


def claim(work: Callable[[Session], T]) -> T:
    """Run `work` in a write transaction, again while providers change underneath."""
    for _ in range(RETRIES):
        try:
            return session.retry_on_deadlock(_in_writer)(work)
        except ProviderChanged:
            continue
    raise errors.ConcurrentUpdate(
        "Inventory and/or allocations changed while attempting to allocate: Another thread "
        "concurrently updated the data. Please retry your update")


def _in_writer(work: Callable[[Session], T]) -> T:
    with session.writer() as s:
        return work(s)


@dataclasses.dataclass
class _State:
    generations: dict[int, int]  # provider id -> generation read
    ids: dict[str, int]  # provider uuid -> id
    inventories: dict[tuple[str, str], Row[*tuple[Any, ...]]]  # (provider uuid, class) -> row


def _read_state(s: Session, claims: list[Claim]) -> _State:
    consumers = [c.consumer_uuid for c in claims]
    rows = s.connection().execute(_STATE, {
        "uuids": sorted({u for c in claims for u in c.resources}), "consumers": consumers,
        "others": consumers}).all()
    state = _State({}, {}, {})
    for r in rows:
        state.generations[r.id] = r.generation
        state.ids[r.uuid] = r.id
        if r.name is not None:
            state.inventories[r.uuid, r.name] = r
    return state


def _missing_inventory(s: Session, rp_uuid: str, name: str) -> errors.PlacementError:
    if not resource_class.ids_by_name(s, [name]):
        return errors.BadRequest(f"Unable to allocate inventory No such resource class {name}.")
    return errors.Conflict(f"Unable to allocate inventory: Inventory for '{name}' on "
                           f"resource provider '{rp_uuid}' invalid.")


def _violation(rp_uuid: str, name: str, what: str) -> errors.Conflict:
    return errors.Conflict(f"Unable to allocate inventory: Unable to create allocation for "
                           f"'{name}' on resource provider '{rp_uuid}'. The requested amount "
                           f"would {what}.")


def _check(s: Session, state: _State, claims: list[Claim]) -> list[dict]:
    """The allocation rows to insert, once every rule holds for them."""
    rows: list[dict[str, Any]] = []
    wanted: defaultdict[tuple[str, str], int] = defaultdict(int)
    for c in claims:
        for rp_uuid, resources in c.resources.items():
            if rp_uuid not in state.ids:
                raise errors.BadRequest(f"Allocation for resource provider '{rp_uuid}' that "
                                        "does not exist.")
            for name, amount in resources.items():
                inv = state.inventories.get((rp_uuid, name))
                if inv is None:
                    raise _missing_inventory(s, rp_uuid, name)
                if not capacity.within_units(amount, inv.min_unit, inv.max_unit,
                                             inv.step_size):
                    raise _violation(rp_uuid, name, "violate inventory constraints")
                wanted[rp_uuid, name] += amount
                rows.append({"resource_provider_id": state.ids[rp_uuid],
                             "consumer_id": c.consumer_uuid,
                             "resource_class_id": inv.resource_class_id, "used": amount,
                             "created_at": utcnow()})
    for (rp_uuid, name), amount in wanted.items():
        inv = state.inventories[rp_uuid, name]
        if not capacity.has_room(inv.used, amount, inv.total, inv.reserved,
                                 inv.allocation_ratio):
            raise _violation(rp_uuid, name, "exceed the capacity")
    return rows


def replace(s: Session, claims: list[Claim]) -> None:
    """Make each consumer's allocations exactly its claim's, in the caller's transaction."""
    state = _read_state(s, claims)
    rows = _check(s, state, claims)
    existing = [c.consumer_uuid for c in claims
                if (c.resources or c.check_generation)
                and consumer.write(s, c.consumer_uuid, c.project_id, c.user_id,
                                   c.generation, c.check_generation, c.consumer_type)]
    conn = s.connection()
    emptied = [c.consumer_uuid for c in claims if not c.resources]
    if existing or emptied:
        conn.execute(_DELETE, {"consumers": existing + emptied})
    if rows:
        conn.execute(_INSERT, rows)
    consumer.delete_if_unused(s, emptied)
    for rp_id in sorted(state.generations):
        gen = state.generations[rp_id]
        if conn.execute(_BUMP, {"rp_id": rp_id, "gen": gen, "new_gen": gen + 1}
                        ).rowcount != 1:
            raise ProviderChanged("resource provider generation conflict")


# Built once: every server deleted frees its allocations with these.
_PROVIDERS_OF = (select(ALLOC.c.resource_provider_id)
                 .where(ALLOC.c.consumer_id == bindparam("consumer")).distinct())
_FREE = delete(ALLOC).where(ALLOC.c.consumer_id == bindparam("consumer"))
_BUMP_EACH = update(RP).where(RP.c.id.in_(bindparam("ids", expanding=True))).values(
    generation=RP.c.generation + 1)


def delete_consumer(s: Session, consumer_uuid: str) -> bool:
    """Remove every allocation of the consumer; False when it had none."""
    touched = list(s.scalars(_PROVIDERS_OF, {"consumer": consumer_uuid}))
    if not touched:
        return False
    s.execute(_FREE, {"consumer": consumer_uuid})
    bump_each(s, touched)
    consumer.delete_if_unused(s, [consumer_uuid])
    return True


def bump_each(s: Session, provider_ids: list[int]) -> None:
    """Move these providers' generations on: what they offer changed."""
    if provider_ids:
        s.execute(_BUMP_EACH, {"ids": provider_ids})


def for_consumer(s: Session, consumer_uuid: str) -> dict[str, dict]:
    """{provider uuid: {"generation": g, "resources": {class: amount}}}."""
    result: dict[str, dict] = {}
    rows = s.execute(select(RP.c.uuid, RP.c.generation, RC.c.name, ALLOC.c.used)
                     .join(RP, RP.c.id == ALLOC.c.resource_provider_id)
                     .join(RC, RC.c.id == ALLOC.c.resource_class_id)
                     .where(ALLOC.c.consumer_id == consumer_uuid))
    for r in rows:
        entry = result.setdefault(r.uuid, {"generation": r.generation, "resources": {}})
        entry["resources"][r.name] = r.used
    return result


def for_provider(s: Session, provider_id: int) -> dict[str, dict]:
    """{consumer uuid: {"resources": {class: amount}}}."""
    result: dict[str, dict] = {}
    rows = s.execute(select(ALLOC.c.consumer_id, RC.c.name, ALLOC.c.used)
                     .join(RC, RC.c.id == ALLOC.c.resource_class_id)
                     .where(ALLOC.c.resource_provider_id == provider_id))
    for r in rows:
        result.setdefault(r.consumer_id, {"resources": {}})["resources"][r.name] = r.used
    return result
