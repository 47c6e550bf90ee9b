"""What placement offers the scheduler for one request (GET /allocation_candidates, as
Nova's scheduler asks it at 1.36): each candidate as an AllocationRequest, each provider
it names with a ProviderSummary.

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
        rather than copies, as ProviderSummary does: at 1,000 hosts a scheduling
        decision reads a thousand of them."""
        return cls(allocations={rp: held["resources"]
                                for rp, held in body["allocations"].items()},
                   mappings=body.get("mappings", {}))

    def to_placement(self) -> dict[str, dict[str, dict[str, int]]]:
        """The allocations as PUT /allocations/{consumer} takes them."""
        return {rp: {"resources": dict(amounts)} for rp, amounts in self.allocations.items()}


@base.register
class ProviderSummary(base.NovaliteObject):
    """A provider a candidate names: where it sits in its tree, its capacity and use
    per resource class, and its traits."""

    VERSION = "1.0"

    root_provider_uuid: str
    parent_provider_uuid: str | None = None
    resources: dict[str, dict[str, int]] = dataclasses.field(
        default_factory=dict)  # resource class -> {"capacity": n, "used": n}
    traits: list[str] = dataclasses.field(default_factory=list)

    @classmethod
    def from_placement(cls, uuid: str, body: dict[str, Any]) -> ProviderSummary:
        """From a value of placement's `provider_summaries` (keyed by `uuid`), which it
        takes over rather than copies: at 1,000 hosts, copying the answer's summaries
        was a twentieth of a boot's scheduling."""
        return cls(root_provider_uuid=body.get("root_provider_uuid", uuid),
                   parent_provider_uuid=body.get("parent_provider_uuid"),
                   resources=body.get("resources", {}), traits=body.get("traits", []))
