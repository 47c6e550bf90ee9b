"""Traits: standard (os-traits) and CUSTOM_*; and which providers have which."""

from __future__ import annotations

from collections.abc import Iterable

import os_traits
from sqlalchemy import bindparam, delete, func, insert, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from novalite.db.models import placement as models
from novalite.placement import errors
from novalite.placement.resource_provider import Provider, bump_generation
from novalite.timeutils import utcnow

TRAIT = models.Trait.__table__
RPT = models.ResourceProviderTrait.__table__


def list_traits(s: Session, name_in: list[str] | None = None, starts_with: str | None = None,
                associated: bool | None = None) -> list[str]:
    query = select(TRAIT.c.name).order_by(TRAIT.c.name)
    if name_in is not None:
        query = query.where(TRAIT.c.name.in_(name_in))
    if starts_with is not None:
        query = query.where(TRAIT.c.name.startswith(starts_with, autoescape=True))
    if associated is not None:
        linked = select(RPT.c.trait_id)
        query = query.where(TRAIT.c.id.in_(linked) if associated
                            else TRAIT.c.id.not_in(linked))
    return list(s.scalars(query))


def find(s: Session, name: str):
    return s.execute(select(TRAIT.c.id, func.coalesce(
        TRAIT.c.updated_at, TRAIT.c.created_at).label("updated"))
        .where(TRAIT.c.name == name)).first()


_IDS_BY_NAME = select(TRAIT.c.name, TRAIT.c.id).where(
    TRAIT.c.name.in_(bindparam("names", expanding=True)))


def require_ids(s: Session, names: Iterable[str], message: str) -> dict[str, int]:
    """Ids of the named traits; unknown ones are a BadRequest `message % names`."""
    names = set(names)
    found = dict(s.execute(_IDS_BY_NAME, {"names": list(names)}).all()) if names else {}
    missing = sorted(names - set(found))
    if missing:
        raise errors.BadRequest(message % ", ".join(missing))
    return found


def create(s: Session, name: str) -> bool:
    """Create a custom trait; False when it already existed."""
    if find(s, name):
        return False
    try:
        with s.begin_nested():
            s.execute(insert(TRAIT).values(name=name, created_at=utcnow()))
    except IntegrityError:
        return False
    return True


def delete_trait(s: Session, name: str) -> None:
    row = find(s, name)
    if row is None:
        raise errors.NotFound(f"No such trait(s): {name}.")
    if name in os_traits.get_traits():
        raise errors.BadRequest(f"Cannot delete standard trait {name}.")
    if s.scalar(select(RPT.c.trait_id).where(RPT.c.trait_id == row.id).limit(1)):
        raise errors.Conflict(f"The trait {name} is in use by a resource provider.")
    s.execute(delete(TRAIT).where(TRAIT.c.id == row.id))


def provider_traits(s: Session, provider_id: int) -> list[str]:
    return list(s.scalars(select(TRAIT.c.name).join(RPT, RPT.c.trait_id == TRAIT.c.id)
                          .where(RPT.c.resource_provider_id == provider_id)
                          .order_by(TRAIT.c.name)))


# Built once (each compute's report replaces its node's traits).
_UNSET_ALL = delete(RPT).where(RPT.c.resource_provider_id == bindparam("provider_id"))
_SET = insert(RPT)


def set_provider_traits(s: Session, provider: Provider, generation: int,
                        trait_ids: Iterable[int]) -> int:
    """Replace the provider's traits; returns its new generation."""
    new_generation = bump_generation(s, provider.id, generation)
    s.execute(_UNSET_ALL, {"provider_id": provider.id})
    rows = [{"resource_provider_id": provider.id, "trait_id": t,
             "created_at": utcnow()} for t in set(trait_ids)]
    if rows:
        s.execute(_SET, rows)
    return new_generation
