"""Inventories: what each provider offers per resource class, and how it may be claimed.

Capacity is (total - reserved) * allocation_ratio; a single allocation must lie within
[min_unit, max_unit] and be a multiple of step_size. Every change bumps the provider's
generation; removing a class that is allocated from is refused (inventory in use).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Any

from sqlalchemy import bindparam, delete, func, insert, select, update
from sqlalchemy.orm import Session

from novalite.db.models import placement as models
from novalite.placement import errors, resource_class
from novalite.placement.resource_provider import Provider, bump_generation
from novalite.timeutils import utcnow

INV = models.Inventory.__table__
RC = models.ResourceClass.__table__
ALLOC = models.Allocation.__table__
MAX_INT = 2147483647
FIELDS = ("total", "reserved", "min_unit", "max_unit", "step_size", "allocation_ratio")
DEFAULTS = {"reserved": 0, "min_unit": 1, "max_unit": MAX_INT, "step_size": 1,
            "allocation_ratio": 1.0}


@dataclasses.dataclass
class Inventory:
    total: int
    reserved: int = 0
    min_unit: int = 1
    max_unit: int = MAX_INT
    step_size: int = 1
    allocation_ratio: float = 1.0

    @classmethod
    def from_body(cls, data: dict[str, Any]) -> Inventory:
        values: dict[str, Any] = {f: data.get(f, DEFAULTS.get(f)) for f in FIELDS}
        return cls(**values)

    def view(self) -> dict:
        return dataclasses.asdict(self)


def _invalid(provider: Provider, name: str, inv: Inventory, equal_ok: bool) -> str | None:
    if inv.reserved > inv.total or (inv.reserved == inv.total and not equal_ok):
        relation = "greater than" if equal_ok else "greater than or equal to"
        return (f"Invalid inventory for '{name}' on resource provider '{provider.uuid}'. "
                f"The reserved value is {relation} total.")
    return None


def check_capacity(provider: Provider, invs: dict[str, Inventory], equal_ok: bool,
                   prefix: str) -> None:
    for name, inv in invs.items():
        problem = _invalid(provider, name, inv, equal_ok)
        if problem:
            raise errors.BadRequest(f"{prefix}: {problem}")


def get_all(s: Session, provider_id: int) -> dict[str, Inventory]:
    rows = s.execute(select(RC.c.name, *(INV.c[f] for f in FIELDS))
                     .join(RC, RC.c.id == INV.c.resource_class_id)
                     .where(INV.c.resource_provider_id == provider_id).order_by(RC.c.name))
    return {r.name: Inventory(*(getattr(r, f) for f in FIELDS)) for r in rows}


def last_modified(s: Session, provider_id: int):
    return s.scalar(select(func.max(func.coalesce(INV.c.updated_at, INV.c.created_at)))
                    .where(INV.c.resource_provider_id == provider_id))


def _allocated_classes(s: Session, provider_id: int, class_ids: Iterable[int]) -> list[str]:
    class_ids = list(class_ids)
    if not class_ids:
        return []
    return sorted(s.scalars(select(RC.c.name).where(RC.c.id.in_(
        select(ALLOC.c.resource_class_id).where(
            ALLOC.c.resource_provider_id == provider_id,
            ALLOC.c.resource_class_id.in_(class_ids))))))


def _in_use(provider: Provider, names: list[str]) -> errors.InventoryInUse:
    return errors.InventoryInUse(f"Inventory for '{', '.join(names)}' on resource provider "
                                 f"'{provider.uuid}' in use.")


# Built once, run as one statement for all of a PUT's classes: a compute's report writes
# three inventories, and building each statement cost more than running it.
_INSERT = insert(INV)
_UPDATE = (update(INV).where(INV.c.resource_provider_id == bindparam("provider_id"),
                             INV.c.resource_class_id == bindparam("class_id"))
           .values(updated_at=bindparam("now"), **{f: bindparam(f"new_{f}") for f in FIELDS}))
_CLASS_IDS = (select(RC.c.name, RC.c.id).join(INV, INV.c.resource_class_id == RC.c.id)
              .where(INV.c.resource_provider_id == bindparam("provider_id")))


def _write(s: Session, provider: Provider, rows: list[tuple[int, Inventory]],
           new: bool) -> None:
    """Insert (`new`) or update the provider's inventory of each (class id, inventory)."""
    if not rows:
        return
    now = utcnow()
    if new:
        s.execute(_INSERT, [{"resource_provider_id": provider.id, "resource_class_id": cid,
                             "created_at": now, **dataclasses.asdict(inv)}
                            for cid, inv in rows])
    else:
        s.execute(_UPDATE, [{"provider_id": provider.id, "class_id": cid, "now": now,
                             **{f"new_{f}": getattr(inv, f) for f in FIELDS}}
                            for cid, inv in rows])


def _class_ids(s: Session, provider_id: int) -> dict[str, int]:
    return dict(s.execute(_CLASS_IDS, {"provider_id": provider_id}).all())


def replace_all(s: Session, provider: Provider, generation: int,
                invs: dict[str, Inventory]) -> int:
    """PUT /inventories: the provider's inventory becomes exactly `invs`."""
    new_generation = bump_generation(s, provider.id, generation)
    try:
        wanted = resource_class.require_ids(s, invs)
    except errors.NotFound as exc:
        raise errors.BadRequest("Unknown resource class in inventory for resource provider "
                                f"{provider.uuid}: {exc.message}") from None
    current = _class_ids(s, provider.id)
    gone = {name: cid for name, cid in current.items() if name not in wanted}
    in_use = _allocated_classes(s, provider.id, gone.values())
    if in_use:
        conflict = _in_use(provider, in_use)
        raise errors.InventoryInUse(f"update conflict: {conflict.message}")
    if gone:
        s.execute(delete(INV).where(INV.c.resource_provider_id == provider.id,
                                    INV.c.resource_class_id.in_(list(gone.values()))))
    _write(s, provider, [(wanted[n], inv) for n, inv in invs.items() if n not in current], True)
    _write(s, provider, [(wanted[n], inv) for n, inv in invs.items() if n in current], False)
    return new_generation


def add(s: Session, provider: Provider, name: str, inv: Inventory) -> int:
    """POST /inventories: one new class."""
    try:
        class_id = resource_class.require_ids(s, [name])[name]
    except errors.NotFound as exc:
        raise errors.BadRequest("Unable to create inventory for resource provider "
                                f"{provider.uuid}: {exc.message}") from None
    if name in _class_ids(s, provider.id):
        raise errors.ConcurrentUpdate(f"Update conflict: Inventory for '{name}' on resource "
                                      f"provider '{provider.uuid}' already exists.")
    new_generation = bump_generation(s, provider.id, provider.generation)
    _write(s, provider, [(class_id, inv)], True)
    return new_generation


def update_one(s: Session, provider: Provider, generation: int, name: str,
               inv: Inventory) -> int:
    new_generation = bump_generation(s, provider.id, generation)
    class_id = _class_ids(s, provider.id).get(name)
    if class_id is None:
        raise errors.BadRequest("No inventory record with resource class for resource "
                                f"provider {provider.uuid}: No inventory of class {name} "
                                "found.")
    _write(s, provider, [(class_id, inv)], False)
    return new_generation


def delete_one(s: Session, provider: Provider, name: str) -> None:
    class_id = _class_ids(s, provider.id).get(name)
    if class_id is None:
        raise errors.NotFound(f"No inventory of class {name} found for delete: No inventory "
                              f"of class {name} found.")
    if _allocated_classes(s, provider.id, [class_id]):
        raise errors.ConcurrentUpdate(f"Unable to delete inventory of class {name}: "
                                      f"{_in_use(provider, [name]).message}")
    bump_generation(s, provider.id, provider.generation)
    s.execute(delete(INV).where(INV.c.resource_provider_id == provider.id,
                                INV.c.resource_class_id == class_id))


def delete_all(s: Session, provider: Provider) -> None:
    """DELETE /inventories (1.5)."""
    current = _class_ids(s, provider.id)
    in_use = _allocated_classes(s, provider.id, current.values())
    if in_use:
        raise _in_use(provider, in_use)
    bump_generation(s, provider.id, provider.generation)
    s.execute(delete(INV).where(INV.c.resource_provider_id == provider.id))
