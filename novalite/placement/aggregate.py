"""Which aggregates (bare uuids) a provider belongs to."""

from __future__ import annotations

from sqlalchemy import delete, insert, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from novalite.db.models import placement as models
from novalite.db.session import insert_id
from novalite.placement import errors
from novalite.placement.resource_provider import Provider, bump_generation
from novalite.timeutils import utcnow

AGG = models.PlacementAggregate.__table__
RPA = models.ResourceProviderAggregate.__table__


def provider_aggregates(s: Session, provider_id: int) -> list[str]:
    return list(s.scalars(select(AGG.c.uuid).join(RPA, RPA.c.aggregate_id == AGG.c.id)
                          .where(RPA.c.resource_provider_id == provider_id)
                          .order_by(AGG.c.uuid)))


def _aggregate_ids(s: Session, uuids: list[str]) -> list[int]:
    known = dict(s.execute(select(AGG.c.uuid, AGG.c.id).where(AGG.c.uuid.in_(uuids))).all())
    for uuid in uuids:
        if uuid not in known:
            try:
                with s.begin_nested():
                    known[uuid] = insert_id(s, insert(AGG).values(
                        uuid=uuid, created_at=utcnow()))
            except IntegrityError:
                known[uuid] = s.scalar(select(AGG.c.id).where(AGG.c.uuid == uuid))
    return [known[u] for u in uuids]


def set_provider_aggregates(s: Session, provider: Provider, generation: int | None,
                            uuids: list[str]) -> int:
    """Replace the provider's aggregates; the generation is checked when given (1.19)."""
    if generation is not None and generation != provider.generation:
        raise errors.ConcurrentUpdate("Resource provider's generation already changed. "
                                      "Please update the generation and try again.")
    new_generation = bump_generation(s, provider.id, provider.generation)
    s.execute(delete(RPA).where(RPA.c.resource_provider_id == provider.id))
    if uuids:
        s.execute(insert(RPA), [{"resource_provider_id": provider.id, "aggregate_id": a,
                                 "created_at": utcnow()}
                                for a in _aggregate_ids(s, uuids)])
    return new_generation
