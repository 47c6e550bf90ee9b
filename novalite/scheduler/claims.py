"""The placement side of one scheduling request: which nodes placement offered, and
claiming the chosen one. Claims are what make several schedulers safe together: a claim
that placement refuses (another scheduler took the capacity first) sends the choice to
the next best host.

A claim can land after everyone else gave up on the build: the conductor that asked was
killed or stopped waiting, and the build watchdog (or the conductor's rollback) put the
instance in ERROR and freed what it held, before this claim. Whoever ends a build writes
ERROR first and frees second; the claimant claims first and reads the instance second, so
one of the two always sees the other and no claim outlives its build. A claim found made
already for an instance another handling of the request placed meanwhile is that one's
(see novalite.objects.claimant): it is kept.

Requests asking placement the same at the same time share its answer (`offered`). In a
boot storm at 1,000 hosts most requests ask for the same flavor, and over half found the
same query still running when they asked; its answer lists every host, and rendering,
decoding and grouping it was a quarter of the all-in-one's CPU. A shared answer is a
few milliseconds older than a request's own would be: it only narrows the choice to the
hosts offered, and a claim placement refuses sends the choice on, as always.
"""

from __future__ import annotations

from collections.abc import Callable

from novalite.clients import placement as placement_client
from novalite.clients.placement import Claim, SchedulerReportClient
from novalite.context import RequestContext
from novalite.objects.allocation_request import AllocationRequest, Offered
from novalite.objects.claimant import Claimant
from novalite.objects.request_spec import RequestSpec
from novalite.scheduler.resource_request import ResourceRequest
from novalite.single_flight import SingleFlight

Offers = dict[str, list[Offered]]  # compute node uuid -> its candidates as placement sent them


class PlacementClaims:
    def __init__(self, client: SchedulerReportClient, ctx: RequestContext, spec: RequestSpec,
                 request: ResourceRequest, claimant: Callable[[str], Claimant],
                 offered: SingleFlight[Offers]) -> None:
        self.client, self.ctx, self.spec, self.request = client, ctx, spec, request
        self.claimant = claimant
        query = request.to_querystring()
        self.by_node = offered.ask(
            query, lambda: client.get_allocation_candidates(ctx, query).by_root())
        self.claimed: list[str] = []  # the claims this request made
        self.abandoned: set[str] = set()  # instances that stopped waiting meanwhile

    def explain(self) -> str:
        return (f"Placement offered {len(self.by_node)} hosts for "
                f"{self.request.describe()}")

    def claim(self, node_uuid: str, instance_uuid: str) -> AllocationRequest | None:
        """The allocation request claimed for `instance_uuid` on the node, or None (and
        the instance in `abandoned` when it stopped waiting for a host meanwhile)."""
        for offered in self.by_node.get(node_uuid, []):
            candidate = offered.request()
            claim = self.client.claim_resources(self.ctx, instance_uuid, candidate,
                                                self.spec.project_id or "",
                                                self.spec.user_id or "")
            if claim is Claim.REFUSED:
                continue
            claimant = self.claimant(instance_uuid)
            if claimant is Claimant.WAITING:
                if claim is Claim.MADE:
                    self.claimed.append(instance_uuid)
                return candidate
            if claim is Claim.MADE or claimant is Claimant.GONE:
                placement_client.free_allocations(self.ctx, instance_uuid, self.client)
            self.abandoned.add(instance_uuid)
            return None
        return None

    def alternate(self, node_uuid: str) -> AllocationRequest | None:
        """An unclaimed candidate for an alternate host (claimed by the conductor if a
        reschedule gets there)."""
        candidates = self.by_node.get(node_uuid)
        return candidates[0].request() if candidates else None

    def release_all(self) -> None:
        """Undo the claims of a request that cannot be placed in full; one found made
        already is left to whoever made it (the conductor's rollback frees it if nobody
        placed the instance)."""
        for instance_uuid in self.claimed:
            placement_client.free_allocations(self.ctx, instance_uuid, self.client)
        self.claimed = []
