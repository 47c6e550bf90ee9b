"""Resource providers: rows, trees (parent/root), generations and the filtered listing."""

from __future__ import annotations

import dataclasses
import datetime
from collections.abc import Iterable

from sqlalchemy import and_, bindparam, delete, exists, func, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, aliased

from novalite.db.models import placement as models
from novalite.db.session import insert_id, run_dml
from novalite.placement import errors
from novalite.timeutils import utcnow

RP = models.ResourceProvider.__table__
INV = models.Inventory.__table__
ALLOC = models.Allocation.__table__
RPT = models.ResourceProviderTrait.__table__
RPA = models.ResourceProviderAggregate.__table__
AGG = models.PlacementAggregate.__table__
TRAIT = models.Trait.__table__


@dataclasses.dataclass
class Provider:
    id: int
    uuid: str
    name: str
    generation: int
    parent_provider_uuid: str | None
    root_provider_uuid: str
    updated_at: datetime.datetime | None


@dataclasses.dataclass
class Filters:
    """What `GET /resource_providers` narrows by; each list of sets is ANDed, each set ORed."""

    uuid: str | None = None
    name: str | None = None
    in_tree: str | None = None
    member_of: list[set[str]] = dataclasses.field(default_factory=list)
    not_member_of: set[str] = dataclasses.field(default_factory=set)
    required: list[set[str]] = dataclasses.field(default_factory=list)
    forbidden: set[str] = dataclasses.field(default_factory=set)
    resources: dict[int, int] = dataclasses.field(default_factory=dict)  # class id -> amount


def _select():
    parent, root = aliased(RP), aliased(RP)
    return (select(RP.c.id, RP.c.uuid, RP.c.name, RP.c.generation,
                   parent.c.uuid.label("parent_uuid"), root.c.uuid.label("root_uuid"),
                   func.coalesce(RP.c.updated_at, RP.c.created_at).label("updated"))
            .outerjoin(parent, parent.c.id == RP.c.parent_provider_id)
            .outerjoin(root, root.c.id == RP.c.root_provider_id))


def _provider(row) -> Provider:
    return Provider(row.id, row.uuid, row.name, row.generation, row.parent_uuid,
                    row.root_uuid, row.updated)


# Built once: making the joined select and its cache key again for every lookup cost
# more than running it (every placement request finds its provider).
_BY_UUID = _select().where(RP.c.uuid == bindparam("uuid"))


def find(s: Session, uuid: str) -> Provider | None:
    row = s.execute(_BY_UUID, {"uuid": uuid}).first()
    return _provider(row) if row else None


def get(s: Session, uuid: str, message: str | None = None) -> Provider:
    provider = find(s, uuid)
    if provider is None:
        raise errors.NotFound(message or f"No resource provider with uuid {uuid} found")
    return provider


_BUMP = (update(RP).where(RP.c.id == bindparam("provider_id"),
                          RP.c.generation == bindparam("seen"))
         .values(generation=bindparam("next")))


def bump_generation(s: Session, provider_id: int, generation: int) -> int:
    """Compare-and-set the generation: the one guard every write to a provider passes."""
    done = run_dml(s, _BUMP, {"provider_id": provider_id, "seen": generation,
                              "next": generation + 1})
    if done.rowcount != 1:
        raise errors.ConcurrentUpdate("resource provider generation conflict")
    return generation + 1


_SAME_UUID_OR_NAME = select(RP.c.uuid, RP.c.name).where(
    (RP.c.uuid == bindparam("uuid")) | (RP.c.name == bindparam("name")))
_INSERT = insert(RP)
_SET_ROOT = (update(RP).where(RP.c.id == bindparam("provider_id"))
             .values(root_provider_id=bindparam("root_id")))


def _duplicates(s: Session, uuid: str, name: str) -> list[str]:
    rows = s.execute(_SAME_UUID_OR_NAME, {"uuid": uuid, "name": name}).all()
    found = []
    if any(r.uuid == uuid for r in rows):
        found.append(f"uuid: {uuid}")
    if any(r.name == name for r in rows):
        found.append(f"name: {name}")
    return found


def create(s: Session, uuid: str, name: str, parent_uuid: str | None) -> Provider:
    duplicates = _duplicates(s, uuid, name)
    if duplicates:
        raise errors.Conflict(f"Conflicting resource provider {', '.join(duplicates)} "
                              "already exists.", errors.DUPLICATE_NAME)
    root_id = parent_id = None
    if parent_uuid is not None:
        parent = s.execute(select(RP.c.id, RP.c.root_provider_id)
                           .where(RP.c.uuid == parent_uuid)).first()
        if parent is None:
            raise errors.BadRequest(
                f'Unable to create resource provider "{name}", {uuid}: Object action create '
                "failed because: parent provider UUID does not exist.")
        parent_id, root_id = parent.id, parent.root_provider_id
    try:
        new_id = insert_id(s, _INSERT, {
            "uuid": uuid, "name": name, "generation": 0, "parent_provider_id": parent_id,
            "root_provider_id": root_id, "created_at": utcnow()})
        if root_id is None:
            s.execute(_SET_ROOT, {"provider_id": new_id, "root_id": new_id})
    except IntegrityError:
        raise errors.Conflict(f"Conflicting resource provider {name} already exists.",
                              errors.DUPLICATE_NAME) from None
    return get(s, uuid)


def _descendant_ids(s: Session, provider_id: int) -> set[int]:
    found, frontier = {provider_id}, {provider_id}
    while frontier:
        frontier = set(s.scalars(select(RP.c.id).where(RP.c.parent_provider_id.in_(frontier))))
        frontier -= found
        found |= frontier
    return found


def _reparent(s: Session, provider: Provider, parent_uuid: str | None,
              allow_reparent: bool) -> None:
    if parent_uuid == provider.parent_provider_uuid:
        return
    fail = "Unable to save resource provider %s: Object action update failed because: %s"
    if provider.parent_provider_uuid is not None and not allow_reparent:
        change = "un-parenting" if parent_uuid is None else "re-parenting"
        raise errors.BadRequest(fail % (provider.uuid, f"{change} a provider is not "
                                                       "currently allowed."))
    subtree = _descendant_ids(s, provider.id)
    if parent_uuid is None:
        parent_id, root_id = None, provider.id
    else:
        parent = s.execute(select(RP.c.id, RP.c.root_provider_id)
                           .where(RP.c.uuid == parent_uuid)).first()
        if parent is None:
            raise errors.BadRequest(fail % (provider.uuid, "parent provider UUID does not "
                                                           "exist."))
        if parent.id in subtree:
            raise errors.BadRequest(fail % (provider.uuid, "creating loop in the provider "
                                                           "tree is not allowed."))
        parent_id, root_id = parent.id, parent.root_provider_id
    s.execute(update(RP).where(RP.c.id == provider.id).values(parent_provider_id=parent_id))
    s.execute(update(RP).where(RP.c.id.in_(subtree)).values(root_provider_id=root_id))


def update_provider(s: Session, provider: Provider, name: str, parent_uuid: str | None,
                    change_parent: bool, allow_reparent: bool) -> Provider:
    if name != provider.name and s.scalar(select(RP.c.id).where(RP.c.name == name)):
        raise errors.Conflict(f"Conflicting resource provider {name} already exists.",
                              errors.DUPLICATE_NAME)
    if change_parent:
        _reparent(s, provider, parent_uuid, allow_reparent)
    s.execute(update(RP).where(RP.c.id == provider.id)
              .values(name=name, updated_at=utcnow()))
    return get(s, provider.uuid)


def delete_provider(s: Session, provider: Provider) -> None:
    if s.scalar(select(ALLOC.c.id).where(ALLOC.c.resource_provider_id == provider.id)
                .limit(1)):
        raise errors.Conflict(f"Unable to delete resource provider {provider.uuid}: Resource "
                              "provider has allocations.", errors.PROVIDER_IN_USE)
    if s.scalar(select(RP.c.id).where(RP.c.parent_provider_id == provider.id).limit(1)):
        raise errors.Conflict(f"Unable to delete parent resource provider {provider.uuid}: "
                              "It has child resource providers.",
                              errors.PROVIDER_CANNOT_DELETE_PARENT)
    for table in (INV, RPT, RPA):
        s.execute(delete(table).where(table.c.resource_provider_id == provider.id))
    s.execute(update(RP).where(RP.c.id == provider.id).values(root_provider_id=None))
    s.execute(delete(RP).where(RP.c.id == provider.id))


def _in_aggregates(uuids: Iterable[str]):
    return (select(RPA.c.resource_provider_id).join(AGG, AGG.c.id == RPA.c.aggregate_id)
            .where(AGG.c.uuid.in_(list(uuids))))


def _with_traits(names: Iterable[str]):
    return (select(RPT.c.resource_provider_id).join(TRAIT, TRAIT.c.id == RPT.c.trait_id)
            .where(TRAIT.c.name.in_(list(names))))


def _fits(class_id: int, amount: int):
    """The provider has inventory of the class that could take `amount` more."""
    used = (select(func.coalesce(func.sum(ALLOC.c.used), 0))
            .where(ALLOC.c.resource_provider_id == INV.c.resource_provider_id,
                   ALLOC.c.resource_class_id == class_id).scalar_subquery())
    return exists().where(
        INV.c.resource_provider_id == RP.c.id, INV.c.resource_class_id == class_id,
        INV.c.min_unit <= amount, INV.c.max_unit >= amount,
        amount % INV.c.step_size == 0,
        (INV.c.total - INV.c.reserved) * INV.c.allocation_ratio >= used + amount)


def _conditions(s: Session, f: Filters) -> list:
    where = []
    if f.uuid:
        where.append(RP.c.uuid == f.uuid)
    if f.name:
        where.append(RP.c.name == f.name)
    if f.in_tree:
        root = select(RP.c.root_provider_id).where(RP.c.uuid == f.in_tree).scalar_subquery()
        where.append(RP.c.root_provider_id == root)
    where += [RP.c.id.in_(_in_aggregates(group)) for group in f.member_of]
    if f.not_member_of:
        where.append(RP.c.id.not_in(_in_aggregates(f.not_member_of)))
    where += [RP.c.id.in_(_with_traits(group)) for group in f.required]
    if f.forbidden:
        where.append(RP.c.id.not_in(_with_traits(f.forbidden)))
    where += [_fits(class_id, amount) for class_id, amount in f.resources.items()]
    return where


def list_providers(s: Session, f: Filters) -> list[Provider]:
    query = _select().where(and_(True, *_conditions(s, f))).order_by(RP.c.id)
    return [_provider(row) for row in s.execute(query)]
