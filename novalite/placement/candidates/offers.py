"""What each provider offers (its inventories, what is used of them, its traits), kept
between candidate requests and read again only for the providers whose generation moved.

Every write that changes a provider's inventories, allocations or traits moves its
generation on in the same transaction, so a provider's (id, uuid, generation) names what
it offers (the uuid: a deleted provider's id may be given again, from generation 0). A
request reads every provider's generation (one narrow row each), and the rows
behind an offer only where the generation differs from the kept one: during a boot storm
at 1,000 hosts, a handful of providers between two requests instead of every inventory
and every allocation. The generation is read before the rows it validates, so a kept
offer may be newer than its generation (it is read again next time) but never older.

Offers are kept per engine: a new engine (another database, or the same one after a
configuration change) starts empty. Rows written around placement's own writers (tests
that build topologies with bare INSERTs) must `forget` the engine's offers."""

from __future__ import annotations

import dataclasses
import threading
import weakref
from collections.abc import Generator, Sequence
from typing import Any, cast

from sqlalchemy import bindparam, func, select
from sqlalchemy.engine import Connection, Engine

from novalite.placement import capacity
from novalite.placement.candidates.snapshot import ALLOC, INV, RP, RP_TRAIT, TRAIT

_BATCH = 1000  # providers whose generations are checked (and stale offers read) at once

_GENERATIONS = select(RP.c.id, RP.c.uuid, RP.c.generation).order_by(RP.c.id)
_SQL: dict[str, str] = {}  # _GENERATIONS compiled, per dialect
_PROVIDERS = (select(RP.c.id, RP.c.uuid, INV.c.resource_class_id, INV.c.total,
                     INV.c.reserved, INV.c.allocation_ratio, INV.c.min_unit, INV.c.max_unit,
                     INV.c.step_size)
              .select_from(RP.outerjoin(INV, INV.c.resource_provider_id == RP.c.id))
              .where(RP.c.id.in_(bindparam("ids", expanding=True))))
_USAGE = (select(ALLOC.c.resource_provider_id, ALLOC.c.resource_class_id,
                 func.sum(ALLOC.c.used))
          .where(ALLOC.c.resource_provider_id.in_(bindparam("ids", expanding=True)))
          .group_by(ALLOC.c.resource_provider_id, ALLOC.c.resource_class_id))
_TRAITS = (select(RP_TRAIT.c.resource_provider_id, TRAIT.c.name)
           .join(TRAIT, TRAIT.c.id == RP_TRAIT.c.trait_id)
           .where(RP_TRAIT.c.resource_provider_id.in_(bindparam("ids", expanding=True))))


@dataclasses.dataclass(slots=True)
class Class:
    """One inventory of a provider, with what is allocated from it."""
    total: int
    reserved: int
    allocation_ratio: float
    min_unit: int
    max_unit: int
    step_size: int
    used: int

    def admits(self, amount: int) -> bool:
        return (capacity.within_units(amount, self.min_unit, self.max_unit, self.step_size)
                and capacity.has_room(self.used, amount, self.total, self.reserved,
                                      self.allocation_ratio))

    @property
    def capacity(self) -> int:
        return int(capacity.capacity(self.total, self.reserved, self.allocation_ratio))


Wanted = tuple[tuple[int, int], ...]  # (resource class id, amount), sorted


Row = tuple[int, str, int]  # a provider's (id, uuid, generation), as read


@dataclasses.dataclass(slots=True)
class Offer:
    row: Row  # what the offer was read for: it is fresh while the provider's row is this
    uuid: str
    classes: dict[int, Class]  # by resource class id
    traits: list[str]  # sorted
    # An offer does not change, so neither do its answers, kept per request shape: its
    # summary as JSON text per view of it (render.view), and whether it admits an ask.
    summaries: dict[Any, str] = dataclasses.field(default_factory=dict)
    answers: dict[Wanted, bool] = dataclasses.field(default_factory=dict)

    def admits(self, wanted: Wanted) -> bool:
        """Whether every class asked for has room for its amount here."""
        answer = self.answers.get(wanted)
        if answer is None:
            answer = self.answers[wanted] = all(
                (kept := self.classes.get(rc)) is not None and kept.admits(amount)
                for rc, amount in wanted)
        return answer


_kept: weakref.WeakKeyDictionary[Engine, dict[int, Offer]] = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def _offers_of(engine: Engine) -> dict[int, Offer]:
    with _lock:
        return _kept.setdefault(engine, {})


def forget(engine: Engine) -> None:
    """Drop what is kept for the engine's database (written behind placement's back)."""
    with _lock:
        _kept.pop(engine, None)


def _read(conn: Connection, generations: dict[int, tuple[str, int]]) -> dict[int, Offer]:
    """The offers of these providers (id -> (uuid, generation) read), as the database
    holds them now; a provider deleted meanwhile is left out, as is one given its id
    meanwhile (another uuid)."""
    ids = {"ids": sorted(generations)}
    usage = {(rp, rc): int(used) for rp, rc, used in conn.execute(_USAGE, ids)}
    traits: dict[int, list[str]] = {}
    for rp_id, name in conn.execute(_TRAITS, ids):
        traits.setdefault(rp_id, []).append(name)
    offers: dict[int, Offer] = {}
    for rp_id, uuid, rc, total, reserved, ratio, min_unit, max_unit, step in conn.execute(
            _PROVIDERS, ids):
        read_uuid, generation = generations[rp_id]
        if uuid != read_uuid:
            continue
        offer = offers.get(rp_id)
        if offer is None:
            offer = offers[rp_id] = Offer((rp_id, uuid, generation), uuid, {},
                                          sorted(traits.get(rp_id, ())))
        if rc is not None:
            offer.classes[rc] = Class(total, reserved, ratio, min_unit, max_unit, step,
                                      usage.get((rp_id, rc), 0))
    return offers


def _generation_batches(conn: Connection) -> Generator[Sequence[Any], None, None]:
    """(id, uuid, generation) of every provider in id order, a batch at a time from the
    DB-API cursor (plain tuples: ten thousand rows cost a few milliseconds); stopping
    early closes it."""
    sql = _SQL.get(conn.dialect.name)
    if sql is None:
        sql = _SQL[conn.dialect.name] = str(_GENERATIONS.compile(dialect=conn.dialect))
    cursor = conn.connection.cursor()
    try:
        cursor.execute(sql)
        while batch := cursor.fetchmany(_BATCH):
            yield batch
    finally:
        cursor.close()


def in_id_order(conn: Connection) -> Generator[list[tuple[int, Offer]], None, None]:
    """Every provider's offer in id order, a batch at a time, read from the database
    where the kept one is stale; stop iterating to stop reading. A pass that reads every
    provider also lets go of the offers of providers deleted since they were kept.

    Each batch is checked and listed by comprehensions over the kept offers looked up
    at once, not provider by provider through a generator: the per-provider steps were
    most of a query's time at 1,000 providers."""
    kept = _offers_of(conn.engine)
    batches = _generation_batches(conn)
    seen = 0
    try:
        for batch in batches:
            seen += len(batch)
            ids = [row[0] for row in batch]
            found = list(map(kept.get, ids))
            stale = {row[0]: (row[1], row[2])
                     for row, offer in zip(batch, found, strict=True)
                     if offer is None or offer.row != row}
            if not stale:  # every one found, and fresh
                yield list(zip(ids, cast(list[Offer], found), strict=True))
                continue
            kept.update(_read(conn, stale))
            yield [(row[0], offer)
                   for row, offer in zip(batch, map(kept.get, ids), strict=True)
                   if offer is not None and offer.row == row]
    finally:
        batches.close()
    if len(kept) > seen:
        _prune(conn, kept)


def _prune(conn: Connection, kept: dict[int, Offer]) -> None:
    """Keep only the offers of providers that exist: run when a whole pass found fewer
    providers than are kept (the missing were deleted). An offer another pass kept
    meanwhile for a provider created since may go too, and is read again."""
    exists = set(conn.execute(select(RP.c.id)).scalars())
    for rp_id in list(kept):  # a copy: other passes may add to it meanwhile
        if rp_id not in exists:
            kept.pop(rp_id, None)
