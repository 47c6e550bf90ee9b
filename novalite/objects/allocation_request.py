"""What placement offers the scheduler for one request (GET /allocation_candidates, as
Nova's scheduler asks it at 1.36): the answer as AllocationCandidates, each candidate the
scheduler takes up as an AllocationRequest.

The scheduler claims a candidate for its chosen host and hands the alternates' candidates
to the conductor inside each Selection, which claims one if a reschedule gets there; so a
candidate crosses RPC and has named fields rather than placement's JSON shape.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from novalite.objects import base


@base.register
class AllocationRequest(base.NovaliteObject):
    """One way to satisfy the request: the amounts to take from each provider, and which
    providers satisfy each request group (placement's `mappings`, from 1.34)."""

    VERSION = "1.0"

    allocations: dict[str, dict[str, int]] = dataclasses.field(
        default_factory=dict)  # provider uuid -> resource class -> amount
    mappings: dict[str, list[str]] = dataclasses.field(
        default_factory=dict)  # request group suffix ("" unsuffixed) -> provider uuids

    @classmethod
    def from_placement(cls, body: dict[str, Any]) -> AllocationRequest:
        """From an item of placement's `allocation_requests` (the dict form an older
        peer still sends in a Selection), whose amounts and mappings it takes over
        rather than copies."""
        return cls(allocations={rp: held["resources"]
                                for rp, held in body["allocations"].items()},
                   mappings=body.get("mappings", {}))

    def to_placement(self) -> dict[str, dict[str, dict[str, int]]]:
        """The allocations as PUT /allocations/{consumer} takes them."""
        return {rp: {"resources": dict(amounts)} for rp, amounts in self.allocations.items()}


@dataclasses.dataclass(frozen=True, slots=True)
class AllocationCandidates:
    """Placement's whole answer, read only as far as a decision needs it. A decision at
    1,000 hosts is offered a thousand candidates and claims one or two: each becomes an
    AllocationRequest only when claimed or handed on as an alternate, and of the
    provider summaries only the root each names is kept (building both as objects was
    a third of a decision). Never crosses RPC."""

    requests: list[dict[str, Any]]  # items of `allocation_requests`, as placement sent them
    roots: dict[str, str]  # provider uuid -> the root of its tree

    @classmethod
    def from_placement(cls, body: dict[str, Any]) -> AllocationCandidates:
        return cls(body["allocation_requests"],
                   {uuid: summary.get("root_provider_uuid", uuid)
                    for uuid, summary in body["provider_summaries"].items()})

    def by_root(self) -> dict[str, list[dict[str, Any]]]:
        """Each candidate under the root of every tree it takes from: the compute node
        it would land on."""
        roots, grouped = self.roots, dict[str, list[dict[str, Any]]]()
        for candidate in self.requests:
            allocations = candidate["allocations"]
            if len(allocations) == 1:  # the usual case: one provider, its own root
                (rp,) = allocations
                grouped.setdefault(roots.get(rp, rp), []).append(candidate)
                continue
            for root in {roots.get(rp, rp) for rp in allocations}:
                grouped.setdefault(root, []).append(candidate)
        return grouped
