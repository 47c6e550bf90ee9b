"""The reshaper: move inventory and the allocations on it between providers atomically
(e.g. VGPU from a compute node root to its new child providers) in one transaction.

Order matters: the named consumers' allocations are lifted first, so inventory they held
may move; inventories are then replaced (still refused where other consumers hold
allocations); finally the new allocations are claimed against the new inventories. A
provider the consumers leave, named nowhere else, still moves its generation on: what it
offers changed (candidates.offers relies on that).
"""

from __future__ import annotations

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from novalite.placement import allocation, errors, inventory, resource_provider

ALLOC = allocation.ALLOC
RP = allocation.RP


def reshape(s: Session, inventories: dict[str, tuple[int, dict[str, inventory.Inventory]]],
            claims: list[allocation.Claim], reserved_may_equal_total: bool) -> None:
    """`inventories`: {provider uuid: (generation, {class: Inventory})}."""
    targets = []
    for uuid, (generation, invs) in inventories.items():
        provider = resource_provider.find(s, uuid)
        if provider is None:
            raise errors.BadRequest(f"Resource provider {uuid} in inventories not found: "
                                    f"No resource provider with uuid {uuid} found",
                                    errors.RESOURCE_PROVIDER_NOT_FOUND)
        if provider.generation != generation:
            raise errors.ConcurrentUpdate(
                f"resource provider generation conflict for provider {uuid}: actual: "
                f"{provider.generation}, given: {generation}")
        inventory.check_capacity(provider, invs, reserved_may_equal_total,
                                 "malformed reshaper data")
        targets.append((provider, invs))
    consumers = [c.consumer_uuid for c in claims]
    named = set(inventories).union(*(c.resources for c in claims))
    left = [rp_id for rp_id, uuid in s.execute(
        select(RP.c.id, RP.c.uuid).join(ALLOC, ALLOC.c.resource_provider_id == RP.c.id)
        .where(ALLOC.c.consumer_id.in_(consumers)).distinct()) if uuid not in named]
    s.execute(delete(ALLOC).where(ALLOC.c.consumer_id.in_(consumers)))
    for provider, invs in targets:
        try:
            inventory.replace_all(s, provider, provider.generation, invs)
        except errors.BadRequest as exc:
            raise errors.BadRequest(f"malformed reshaper data: {exc.message}") from None
    allocation.replace(s, claims)
    allocation.bump_each(s, left)
