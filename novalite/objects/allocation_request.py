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

import msgspec

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


class MalformedAnswer(ValueError):
    """Placement's answer is not the shape GET /allocation_candidates has."""


class Offered(msgspec.Struct, frozen=True, gc=False):
    """An item of placement's `allocation_requests` as the scheduler reads it: which
    providers it takes from; how much, and its mappings, stay the JSON placement wrote
    until the candidate is claimed or handed on. Not tracked by the cyclic collector:
    nothing it holds can refer back to it."""

    allocations: dict[str, msgspec.Raw]  # provider uuid -> {"resources": {...}}
    mappings: msgspec.Raw = msgspec.Raw(b"{}")  # from 1.34

    def request(self) -> AllocationRequest:
        try:
            return AllocationRequest(
                allocations={rp: _HELD.decode(held).resources
                             for rp, held in self.allocations.items()},
                mappings=_MAPPINGS.decode(self.mappings))
        except msgspec.DecodeError as e:  # ValidationError included
            raise MalformedAnswer(f"a candidate: {e}") from None


class _Held(msgspec.Struct, gc=False):
    resources: dict[str, int]


class _Summary(msgspec.Struct, gc=False):
    root_provider_uuid: str | None = None  # from 1.29; before, every provider a root


class _Answer(msgspec.Struct, gc=False):
    allocation_requests: list[Offered]
    provider_summaries: dict[str, _Summary]


_ANSWER = msgspec.json.Decoder(_Answer)
_HELD = msgspec.json.Decoder(_Held)
_MAPPINGS = msgspec.json.Decoder(dict[str, list[str]])


@dataclasses.dataclass(frozen=True, slots=True)
class AllocationCandidates:
    """Placement's whole answer, read only as far as a decision needs it. A decision at
    1,000 hosts is offered a thousand candidates and claims one or two: only the
    providers each candidate names, and the root of each summary, are decoded (into
    objects the collector does not track); the amounts wait until a candidate is claimed
    or handed on. Decoding all of it with orjson, freeing it and the collector's passes
    over it were a quarter of the all-in-one's CPU in a boot storm at 1,000 hosts.
    Never crosses RPC."""

    requests: list[Offered]
    roots: dict[str, str]  # provider uuid -> the root of its tree

    @classmethod
    def decode(cls, body: bytes) -> AllocationCandidates:
        try:
            answer = _ANSWER.decode(body)
        except msgspec.DecodeError as e:  # ValidationError included
            raise MalformedAnswer(str(e)) from None
        return cls(answer.allocation_requests,
                   {uuid: summary.root_provider_uuid or uuid
                    for uuid, summary in answer.provider_summaries.items()})

    def by_root(self) -> dict[str, list[Offered]]:
        """Each candidate under the root of every tree it takes from: the compute node
        it would land on."""
        roots, grouped = self.roots, dict[str, list[Offered]]()
        for candidate in self.requests:
            allocations = candidate.allocations
            if len(allocations) == 1:  # the usual case: one provider, its own root
                (rp,) = allocations
                grouped.setdefault(roots.get(rp, rp), []).append(candidate)
                continue
            for root in {roots.get(rp, rp) for rp in allocations}:
                grouped.setdefault(root, []).append(candidate)
        return grouped
