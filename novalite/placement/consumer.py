"""Consumers (whoever holds allocations: an instance, a migration) and their generations.

A consumer row exists while it holds allocations. Each write of its allocations moves its
generation by one (a new consumer starts at 1), compare-and-set on the generation read, so
two writers of one consumer can never both win.
"""

from __future__ import annotations

import dataclasses

from sqlalchemy import delete, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from novalite.db.models import placement as models
from novalite.db.models import utcnow
from novalite.placement import errors

CONSUMER = models.Consumer.__table__
CTYPE = models.ConsumerType.__table__
ALLOC = models.Allocation.__table__
# Upstream's [placement] incomplete_consumer_project_id/user_id defaults, for writes made
# before 1.8 that name no project or user.
INCOMPLETE_ID = "00000000-0000-0000-0000-000000000000"
UNKNOWN_TYPE = "unknown"


@dataclasses.dataclass
class Consumer:
    id: int
    uuid: str
    project_id: str
    user_id: str
    generation: int
    consumer_type: str | None


def find(s: Session, uuid: str) -> Consumer | None:
    row = s.execute(select(CONSUMER.c.id, CONSUMER.c.uuid, CONSUMER.c.project_id,
                           CONSUMER.c.user_id, CONSUMER.c.generation, CTYPE.c.name)
                    .outerjoin(CTYPE, CTYPE.c.id == CONSUMER.c.consumer_type_id)
                    .where(CONSUMER.c.uuid == uuid)).first()
    return Consumer(*row) if row else None


def type_id(s: Session, name: str) -> int:
    found = s.scalar(select(CTYPE.c.id).where(CTYPE.c.name == name))
    if found is not None:
        return found
    try:
        with s.begin_nested():
            return s.execute(insert(CTYPE).values(name=name, created_at=utcnow())
                             ).inserted_primary_key[0]
    except IntegrityError:
        return s.scalar(select(CTYPE.c.id).where(CTYPE.c.name == name))


def _conflict(expected: object, got: object) -> errors.ConcurrentUpdate:
    return errors.ConcurrentUpdate(
        f"consumer generation conflict - expected {expected} but got {got}")


def write(s: Session, uuid: str, project_id: str | None, user_id: str | None,
          generation: int | None, check_generation: bool, consumer_type: str | None) -> None:
    """Create the consumer or move its generation on, checking the caller's generation
    (from 1.28) and recording project, user and type."""
    current = find(s, uuid)
    values = {"project_id": project_id or INCOMPLETE_ID, "user_id": user_id or INCOMPLETE_ID}
    if consumer_type is not None:
        values["consumer_type_id"] = type_id(s, consumer_type)
    if current is None:
        if check_generation and generation is not None:
            raise errors.ConcurrentUpdate(
                f"consumer generation conflict - expected null but got {generation}")
        try:
            with s.begin_nested():
                s.execute(insert(CONSUMER).values(uuid=uuid, generation=1,
                                                  created_at=utcnow(), **values))
        except IntegrityError:
            raise _conflict("null", "an existing consumer") from None
        return
    if check_generation and generation != current.generation:
        raise _conflict(current.generation, "null" if generation is None else generation)
    if project_id is None:
        values = {k: v for k, v in values.items() if k == "consumer_type_id"}
    done = s.execute(update(CONSUMER).where(CONSUMER.c.id == current.id,
                                            CONSUMER.c.generation == current.generation)
                     .values(generation=current.generation + 1,
                             updated_at=utcnow(), **values))
    if done.rowcount != 1:
        raise _conflict(current.generation, "a concurrent update")


def delete_if_unused(s: Session, uuids: list[str]) -> None:
    if uuids:
        s.execute(delete(CONSUMER).where(CONSUMER.c.uuid.in_(uuids),
                                         CONSUMER.c.uuid.not_in(select(ALLOC.c.consumer_id))))
