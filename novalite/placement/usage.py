"""Usages: what is allocated, summed per provider or per project (and user, and type)."""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from novalite.db.models import placement as models
from novalite.placement.consumer import UNKNOWN_TYPE

INV = models.Inventory.__table__
RC = models.ResourceClass.__table__
ALLOC = models.Allocation.__table__
CONSUMER = models.Consumer.__table__
CTYPE = models.ConsumerType.__table__


def for_provider(s: Session, provider_id: int) -> dict[str, int]:
    """Every class the provider has inventory of (0 when unused) or allocations of."""
    used = dict(s.execute(select(RC.c.name, func.sum(ALLOC.c.used))
                          .join(RC, RC.c.id == ALLOC.c.resource_class_id)
                          .where(ALLOC.c.resource_provider_id == provider_id)
                          .group_by(RC.c.name)).all())
    offered = s.scalars(select(RC.c.name).join(INV, INV.c.resource_class_id == RC.c.id)
                        .where(INV.c.resource_provider_id == provider_id))
    return {name: int(used.get(name, 0)) for name in {*offered, *used}}


def _owned(project_id: str, user_id: str | None):
    where = [CONSUMER.c.project_id == project_id]
    if user_id is not None:
        where.append(CONSUMER.c.user_id == user_id)
    return where


def for_project(s: Session, project_id: str, user_id: str | None) -> dict[str, int]:
    rows = s.execute(select(RC.c.name, func.sum(ALLOC.c.used))
                     .join(RC, RC.c.id == ALLOC.c.resource_class_id)
                     .join(CONSUMER, CONSUMER.c.uuid == ALLOC.c.consumer_id)
                     .where(*_owned(project_id, user_id)).group_by(RC.c.name))
    return {name: int(total) for name, total in rows}


def by_consumer_type(s: Session, project_id: str, user_id: str | None,
                     consumer_type: str | None) -> dict[str, dict[str, int]]:
    """{type: {class: used, "consumer_count": n}} (1.38). "all" sums every type under one
    key; "unknown" is the consumers written before types existed."""
    type_name = func.coalesce(CTYPE.c.name, UNKNOWN_TYPE)
    group = type_name if consumer_type != "all" else None
    where = _owned(project_id, user_id)
    if consumer_type == UNKNOWN_TYPE:
        where.append(CONSUMER.c.consumer_type_id.is_(None))
    elif consumer_type not in (None, "all"):
        where.append(CTYPE.c.name == consumer_type)
    base = (select(*([group] if group is not None else []))
            .select_from(ALLOC)
            .join(CONSUMER, CONSUMER.c.uuid == ALLOC.c.consumer_id)
            .outerjoin(CTYPE, CTYPE.c.id == CONSUMER.c.consumer_type_id).where(*where))
    result: dict[str, dict[str, int]] = {}
    by_class = base.add_columns(RC.c.name, func.sum(ALLOC.c.used)).join(
        RC, RC.c.id == ALLOC.c.resource_class_id)
    by_class = by_class.group_by(*([group] if group is not None else []), RC.c.name)
    for row in s.execute(by_class):
        key = row[0] if group is not None else "all"
        result.setdefault(key, {})[row[-2]] = int(row[-1])
    counts = base.add_columns(func.count(func.distinct(ALLOC.c.consumer_id)))
    if group is not None:
        counts = counts.group_by(group)
    for row in s.execute(counts):
        key = row[0] if group is not None else "all"
        if key in result:
            result[key]["consumer_count"] = int(row[-1])
    return result
