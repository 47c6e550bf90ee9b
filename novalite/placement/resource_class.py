"""Resource classes: the standard ones (read-only rows) and CUSTOM_* ones."""

from __future__ import annotations

import datetime
from collections.abc import Iterable

import os_resource_classes
from sqlalchemy import bindparam, delete, func, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from novalite.db.models import placement as models
from novalite.placement import errors
from novalite.timeutils import utcnow

RC = models.ResourceClass.__table__
INV = models.Inventory.__table__
ALLOC = models.Allocation.__table__
CUSTOM_PREFIX = "CUSTOM_"


def list_classes(s: Session) -> list[tuple[str, datetime.datetime | None]]:
    return [(r.name, r.updated) for r in s.execute(
        select(RC.c.name, func.coalesce(RC.c.updated_at, RC.c.created_at).label("updated"))
        .order_by(RC.c.id))]


def find(s: Session, name: str):
    return s.execute(select(RC.c.id, RC.c.name, func.coalesce(
        RC.c.updated_at, RC.c.created_at).label("updated")).where(RC.c.name == name)).first()


def get(s: Session, name: str):
    row = find(s, name)
    if row is None:
        raise errors.NotFound(f"No such resource class {name}.")
    return row


_BY_NAMES = select(RC.c.name, RC.c.id).where(RC.c.name.in_(bindparam("names", expanding=True)))


def ids_by_name(s: Session, names: Iterable[str]) -> dict[str, int]:
    names = set(names)
    if not names:
        return {}
    return dict(s.execute(_BY_NAMES, {"names": list(names)}).all())


def require_ids(s: Session, names: Iterable[str]) -> dict[str, int]:
    """Ids of the named classes; the first unknown one is a NotFound."""
    names = list(names)
    found = ids_by_name(s, names)
    for name in names:
        if name not in found:
            raise errors.NotFound(f"No such resource class {name}.")
    return found


def create(s: Session, name: str) -> None:
    try:
        with s.begin_nested():
            s.execute(insert(RC).values(name=name, created_at=utcnow()))
    except IntegrityError:
        raise errors.Conflict(f"Conflicting resource class already exists: {name}") from None


def is_standard(name: str) -> bool:
    return name in os_resource_classes.STANDARDS


def _in_use(s: Session, class_id: int) -> bool:
    return any(s.scalar(select(t.c.id).where(t.c.resource_class_id == class_id).limit(1))
               for t in (INV, ALLOC))


def delete_class(s: Session, name: str) -> None:
    row = get(s, name)
    if is_standard(name):
        raise errors.BadRequest("Error in delete resource class: Cannot delete standard "
                                f"resource class {name}.")
    if _in_use(s, row.id):
        raise errors.Conflict(f"Error in delete resource class: Cannot delete resource class "
                              f"{name}. Class is in use in inventory.")
    s.execute(delete(RC).where(RC.c.id == row.id))


def rename(s: Session, name: str, new_name: str) -> None:
    """PUT before 1.7: rename a custom class."""
    row = get(s, name)
    if is_standard(name):
        raise errors.BadRequest(f"Cannot update standard resource class {name}")
    if find(s, new_name):
        raise errors.Conflict(f"Resource class already exists: {new_name}")
    s.execute(update(RC).where(RC.c.id == row.id)
              .values(name=new_name, updated_at=utcnow()))
