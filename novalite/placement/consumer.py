"""Consumers (whoever holds allocations: an instance, a migration) and their generations.

A consumer row exists while it holds allocations. Each write of its allocations moves its
generation by one (a new consumer starts at 1), compare-and-set on the generation read, so
two writers of one consumer can never both win. Statements are built once: a claim runs
them on the hot path.
"""

from __future__ import annotations

import dataclasses
import weakref

from sqlalchemy import bindparam, delete, insert, select, update
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from novalite.db.models import placement as models
from novalite.db.session import insert_id
from novalite.placement import errors
from novalite.timeutils import utcnow

CONSUMER = models.Consumer.__table__
CTYPE = models.ConsumerType.__table__
ALLOC = models.Allocation.__table__
# Upstream's [placement] incomplete_consumer_project_id/user_id defaults, for writes made
# before 1.8 that name no project or user.
INCOMPLETE_ID = "00000000-0000-0000-0000-000000000000"
UNKNOWN_TYPE = "unknown"

_FIND = (select(CONSUMER.c.id, CONSUMER.c.uuid, CONSUMER.c.project_id, CONSUMER.c.user_id,
                CONSUMER.c.generation, CTYPE.c.name)
         .outerjoin(CTYPE, CTYPE.c.id == CONSUMER.c.consumer_type_id)
         .where(CONSUMER.c.uuid == bindparam("uuid")))
_BUMP = (update(CONSUMER).where(CONSUMER.c.id == bindparam("cid"),
                                CONSUMER.c.generation == bindparam("gen")))
_INSERT = insert(CONSUMER)
# Consumer types are never deleted, so their ids are cached per database.
_type_ids: weakref.WeakKeyDictionary[Engine | Connection, dict[str, int]] = (
    weakref.WeakKeyDictionary())


@dataclasses.dataclass
class Consumer:
    id: int
    uuid: str
    project_id: str
    user_id: str
    generation: int
    consumer_type: str | None


def find(s: Session, uuid: str) -> Consumer | None:
    row = s.connection().execute(_FIND, {"uuid": uuid}).first()
    return Consumer(*row) if row else None


def type_id(s: Session, name: str) -> int:
    """The type's id, made when new. Only a committed id is cached: one made in the
    caller's transaction (`s.info`) is gone if that rolls back."""
    cache = _type_ids.setdefault(s.get_bind(), {})
    if name in cache:
        return cache[name]
    made = s.info.setdefault("consumer_types_made", set())
    found = s.scalar(select(CTYPE.c.id).where(CTYPE.c.name == name))
    if found is not None:
        if name not in made:
            cache[name] = found
        return found
    try:
        with s.begin_nested():
            found = insert_id(s, insert(CTYPE).values(name=name, created_at=utcnow()))
    except IntegrityError:
        # Made meanwhile by another transaction, now committed. A locking read sees it
        # even under MySQL's REPEATABLE READ, whose plain reads keep this transaction's
        # snapshot from before that commit.
        existing = s.scalar(select(CTYPE.c.id).where(CTYPE.c.name == name)
                            .with_for_update(read=True))
        if existing is None:
            raise
        return int(existing)
    made.add(name)
    return found


def _conflict(expected: object, got: object) -> errors.ConcurrentUpdate:
    return errors.ConcurrentUpdate(
        f"consumer generation conflict - expected {expected} but got {got}")


def write(s: Session, uuid: str, project_id: str | None, user_id: str | None,
          generation: int | None, check_generation: bool, consumer_type: str | None) -> bool:
    """Create the consumer or move its generation on, checking the caller's generation
    (from 1.28) and recording project, user and type. True when it already existed."""
    current = find(s, uuid)
    values: dict[str, str | int] = {"project_id": project_id or INCOMPLETE_ID,
                                    "user_id": user_id or INCOMPLETE_ID}
    if consumer_type is not None:
        values["consumer_type_id"] = type_id(s, consumer_type)
    conn = s.connection()
    if current is None:
        if check_generation and generation is not None:
            raise _conflict("null", generation)
        try:
            conn.execute(_INSERT, {"uuid": uuid, "generation": 1,
                                            "created_at": utcnow(), **values})
        except IntegrityError:
            raise _conflict("null", "an existing consumer") from None
        return False
    if check_generation and generation != current.generation:
        raise _conflict(current.generation, "null" if generation is None else generation)
    if project_id is None:
        values = {k: v for k, v in values.items() if k == "consumer_type_id"}
    done = conn.execute(_BUMP.values(generation=current.generation + 1, updated_at=utcnow(),
                                     **values),
                        {"cid": current.id, "gen": current.generation})
    if done.rowcount != 1:
        raise _conflict(current.generation, "a concurrent update")
    return True


_DELETE_UNUSED = delete(CONSUMER).where(
    CONSUMER.c.uuid.in_(bindparam("uuids", expanding=True)),
    CONSUMER.c.uuid.not_in(select(ALLOC.c.consumer_id)))


def delete_if_unused(s: Session, uuids: list[str]) -> None:
    if uuids:
        s.execute(_DELETE_UNUSED, {"uuids": uuids})
