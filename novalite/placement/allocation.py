"""Allocations: what each consumer holds from which provider, and the claim itself.

A claim (`replace`) is one short write transaction: read the providers' generations,
replace the consumers' allocations, check capacity with the new rows in place, then
compare-and-set every touched provider's generation. A concurrent claim on the same
provider makes that last step fail; the whole transaction is then retried from the top
(`claim`), so capacity is never exceeded and the caller sees a 409 only after repeated
losses. All-or-nothing: any failure rolls back every consumer in the request.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Callable
from typing import TypeVar

from sqlalchemy import delete, func, insert, select, update
from sqlalchemy.orm import Session

from novalite.db import session
from novalite.db.models import placement as models
from novalite.db.models import utcnow
from novalite.placement import consumer, errors, resource_class

RP = models.ResourceProvider.__table__
INV = models.Inventory.__table__
RC = models.ResourceClass.__table__
ALLOC = models.Allocation.__table__
RETRIES = 10
T = TypeVar("T")


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


def _providers(s: Session, uuids: set[str], ids: set[int]) -> dict[int, tuple[str, int]]:
    """id -> (uuid, generation) of the named providers; an unknown uuid is a 400."""
    rows = s.execute(select(RP.c.id, RP.c.uuid, RP.c.generation)
                     .where(RP.c.uuid.in_(uuids) | RP.c.id.in_(ids))).all()
    known = {r.uuid for r in rows}
    for uuid in sorted(uuids - known):
        raise errors.BadRequest(f"Allocation for resource provider '{uuid}' that does not "
                                "exist.")
    return {r.id: (r.uuid, r.generation) for r in rows}


def _class_ids(s: Session, claims: list[Claim]) -> dict[str, int]:
    names = {rc for c in claims for res in c.resources.values() for rc in res}
    try:
        return resource_class.require_ids(s, sorted(names))
    except errors.NotFound as exc:
        raise errors.BadRequest(f"Unable to allocate inventory {exc.message}") from None


def _check_capacity(s: Session, wanted: dict[tuple[int, int], int],
                    names: dict[int, str], uuids: dict[int, str]) -> None:
    if not wanted:
        return
    used = (select(func.coalesce(func.sum(ALLOC.c.used), 0))
            .where(ALLOC.c.resource_provider_id == INV.c.resource_provider_id,
                   ALLOC.c.resource_class_id == INV.c.resource_class_id).scalar_subquery())
    rows = s.execute(select(INV, used.label("used"))
                     .where(INV.c.resource_provider_id.in_({p for p, _ in wanted}),
                            INV.c.resource_class_id.in_({c for _, c in wanted}))).all()
    inventories = {(r.resource_provider_id, r.resource_class_id): r for r in rows}
    for rp_id, rc_id in wanted:
        inv = inventories.get((rp_id, rc_id))
        where = f"'{names[rc_id]}' on resource provider '{uuids[rp_id]}'"
        if inv is None:
            raise errors.Conflict(f"Unable to allocate inventory: Inventory for {where} "
                                  "invalid.")
        if (inv.total - inv.reserved) * inv.allocation_ratio < inv.used:
            raise errors.Conflict(
                f"Unable to allocate inventory: Unable to create allocation for {where}. "
                "The requested amount would exceed the capacity.")


def _check_units(s: Session, rows: list[dict], names: dict[int, str],
                 uuids: dict[int, str]) -> None:
    """Each single allocation within min_unit..max_unit and a multiple of step_size."""
    pairs = {(r["resource_provider_id"], r["resource_class_id"]) for r in rows}
    if not pairs:
        return
    limits = {(i.resource_provider_id, i.resource_class_id): i for i in s.execute(
        select(INV.c.resource_provider_id, INV.c.resource_class_id, INV.c.min_unit,
               INV.c.max_unit, INV.c.step_size)
        .where(INV.c.resource_provider_id.in_({p for p, _ in pairs}),
               INV.c.resource_class_id.in_({c for _, c in pairs})))}
    for r in rows:
        inv = limits.get((r["resource_provider_id"], r["resource_class_id"]))
        if inv and not (inv.min_unit <= r["used"] <= inv.max_unit
                        and r["used"] % inv.step_size == 0):
            where = (f"'{names[r['resource_class_id']]}' on resource provider "
                     f"'{uuids[r['resource_provider_id']]}'")
            raise errors.Conflict(
                f"Unable to allocate inventory: Unable to create allocation for {where}. "
                "The requested amount would violate inventory constraints.")


def replace(s: Session, claims: list[Claim]) -> None:
    """Make each consumer's allocations exactly its claim's, in the caller's transaction."""
    consumers = [c.consumer_uuid for c in claims]
    old_ids = set(s.scalars(select(ALLOC.c.resource_provider_id)
                            .where(ALLOC.c.consumer_id.in_(consumers)).distinct()))
    providers = _providers(s, {u for c in claims for u in c.resources}, old_ids)
    by_uuid = {uuid: pid for pid, (uuid, _) in providers.items()}
    class_ids = _class_ids(s, claims)
    for c in claims:
        if c.resources or c.check_generation:
            consumer.write(s, c.consumer_uuid, c.project_id, c.user_id, c.generation,
                           c.check_generation, c.consumer_type)
    s.execute(delete(ALLOC).where(ALLOC.c.consumer_id.in_(consumers)))
    rows = [{"resource_provider_id": by_uuid[rp], "consumer_id": c.consumer_uuid,
             "resource_class_id": class_ids[rc], "used": amount,
             "created_at": utcnow()}
            for c in claims for rp, res in c.resources.items() for rc, amount in res.items()]
    names = {v: k for k, v in class_ids.items()}
    uuids = {pid: uuid for pid, (uuid, _) in providers.items()}
    _check_units(s, rows, names, uuids)
    if rows:
        s.execute(insert(ALLOC), rows)
    wanted: dict[tuple[int, int], int] = defaultdict(int)
    for r in rows:
        wanted[r["resource_provider_id"], r["resource_class_id"]] += r["used"]
    _check_capacity(s, wanted, names, uuids)
    consumer.delete_if_unused(s, [c.consumer_uuid for c in claims if not c.resources])
    for pid in sorted(providers):
        done = s.execute(update(RP).where(RP.c.id == pid,
                                          RP.c.generation == providers[pid][1])
                         .values(generation=providers[pid][1] + 1))
        if done.rowcount != 1:
            raise ProviderChanged("resource provider generation conflict")


def delete_consumer(s: Session, consumer_uuid: str) -> bool:
    """Remove every allocation of the consumer; False when it had none."""
    touched = list(s.scalars(select(ALLOC.c.resource_provider_id)
                             .where(ALLOC.c.consumer_id == consumer_uuid).distinct()))
    if not touched:
        return False
    s.execute(delete(ALLOC).where(ALLOC.c.consumer_id == consumer_uuid))
    s.execute(update(RP).where(RP.c.id.in_(touched)).values(generation=RP.c.generation + 1))
    consumer.delete_if_unused(s, [consumer_uuid])
    return True


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
