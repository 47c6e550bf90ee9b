"""The placement client every service uses (Nova's SchedulerReportClient): computes
report their providers, inventory, traits; the scheduler asks for allocation candidates
and claims; the conductor moves a claim to an alternate; computes and the API free
allocations.

It speaks placement's REST API over HTTP through keystoneauth, configured by the
`[placement]` options (novalite.conf.placement_client), so a service needs no database
access to use it and a Nova operator's `[placement]` section works unchanged.
"""

from __future__ import annotations

import enum
import logging
import threading
import urllib.parse
from typing import Any

from keystoneauth1 import exceptions as ks_exc

from novalite import exception
from novalite.clients import adapters
from novalite.conf.placement_client import GROUP
from novalite.context import RequestContext
from novalite.objects.allocation_request import (
    AllocationCandidates,
    AllocationRequest,
    MalformedAnswer,
)

LOG = logging.getLogger(__name__)

CANDIDATES_VERSION = "1.36"  # what Nova's scheduler asks allocation candidates at
CLAIM_VERSION = "1.38"  # consumer types: claims say they are for an INSTANCE
PROVIDER_VERSION = "1.20"
AGGREGATES_VERSION = "1.19"
TRAITS_VERSION = "1.6"
# A provider's inventory and traits are written where errors carry codes (1.23), so a
# generation conflict (placement.concurrent_update) is told from other 409s; from 1.26
# an inventory may reserve all of its total.
PROVIDER_WRITE_VERSION = "1.26"
CONFLICT_RETRIES = 4


class Claim(enum.Enum):
    """What placement made of a claim for a new consumer."""
    MADE = "made"  # it holds the claim now
    FOUND = "found"  # the consumer held this very claim already (see claim_resources)
    REFUSED = "refused"  # the capacity went to someone else, or the consumer holds other


class PlacementUnavailable(exception.NovaliteException):
    msg_fmt = ("Placement is unreachable or failing (%(reason)s); check the [placement] "
               "options (endpoint_override or auth) and that novalite-api serves "
               "/placement.")


def _errors(response: Any) -> str:
    try:
        return "; ".join(e.get("detail", "") for e in response.json().get("errors", []))
    except ValueError:
        return str(response.text)[:200]


def _json(response: Any) -> dict[str, Any]:
    """The response's JSON body: placement answers an object."""
    body: dict[str, Any] = response.json()
    return body


def _error_codes(response: Any) -> set[str]:
    try:
        return {e.get("code", "") for e in response.json().get("errors", [])}
    except ValueError:
        return set()


def _whole_body(response: Any) -> bytes:
    """A streamed response's body in one read. `.content` reads it 10 KB at a time, and
    each read gives up the GIL and waits its turn to get it back: a thousand candidates
    (600 KB) took 62 ms that way beside two busy threads, 24 ms in one read. Debug
    logging of bodies may have read it already (then `.content` has it)."""
    return bytes(response.raw.read(decode_content=True) or response.content)


class SchedulerReportClient:
    def __init__(self) -> None:
        self._client: Any = None
        self._lock = threading.Lock()
        # what this client last wrote per provider: {uuid: (inventory, traits)}
        self._pushed: dict[str, tuple[dict[str, Any], frozenset[str]]] = {}

    # --- plumbing -----------------------------------------------------------------

    @property
    def client(self) -> Any:
        with self._lock:
            if self._client is None:
                self._client = adapters.local_client(GROUP) or adapters.adapter(GROUP)
            return self._client

    def _request(self, method: str, url: str, version: str, ctx: RequestContext | None,
                 body: Any = None, stream: bool = False) -> Any:
        kwargs: dict[str, Any] = {"microversion": version, "raise_exc": False,
                                  "stream": stream}
        if body is not None:
            kwargs["json"] = body
        if ctx is not None:
            kwargs["global_request_id"] = ctx.global_request_id or ctx.request_id
        try:
            return self.client.request(url, method, **kwargs)
        except ks_exc.ClientException as exc:
            raise PlacementUnavailable(reason=f"{method} {url}: {exc}") from exc

    def _get(self, url: str, version: str, ctx: RequestContext | None = None) -> Any:
        return self._request("GET", url, version, ctx)

    def _check(self, response: Any, what: str, ok: tuple[int, ...] = (200, 204)) -> Any:
        if response.status_code not in ok:
            raise PlacementUnavailable(
                reason=f"{what} answered {response.status_code}: {_errors(response)}")
        return response

    # --- providers (computes) -----------------------------------------------------

    def ensure_resource_provider(self, ctx: RequestContext, uuid: str, name: str,
                                 probably_new: bool = False) -> dict[str, Any]:
        """The provider of a compute node, created on first sight (uuid = the node's).
        `probably_new`: create it without looking first (it is read only if it exists)."""
        if not probably_new:
            response = self._get(f"/resource_providers/{uuid}", PROVIDER_VERSION, ctx)
            if response.status_code == 200:
                return _json(response)
        response = self._request("POST", "/resource_providers", PROVIDER_VERSION, ctx,
                                 {"uuid": uuid, "name": name})
        if response.status_code == 409:  # there after all, or created meanwhile
            response = self._get(f"/resource_providers/{uuid}", PROVIDER_VERSION, ctx)
        return _json(self._check(response, f"creating provider {name}"))

    def delete_resource_provider(self, ctx: RequestContext, uuid: str) -> None:
        """Forget a deleted compute node's provider (already gone is fine)."""
        self._check(self._request("DELETE", f"/resource_providers/{uuid}",
                                  PROVIDER_VERSION, ctx),
                    f"deleting provider {uuid}", (204, 404))
        self._pushed.pop(uuid, None)

    def _provider_generation(self, ctx: RequestContext, uuid: str) -> int:
        response = self._check(self._get(f"/resource_providers/{uuid}", PROVIDER_VERSION,
                                         ctx), f"reading provider {uuid}")
        return int(_json(response)["generation"])

    def update_provider(self, ctx: RequestContext, uuid: str, name: str,
                        inventory: dict[str, dict[str, Any]], traits: set[str],
                        probably_new: bool = False) -> bool:
        """Make the provider offer `inventory` and carry `traits`; only what changed since
        this client's last write is sent. True when something was written."""
        wanted = (inventory, frozenset(traits))
        if self._pushed.get(uuid) == wanted:
            return False
        generation = int(self.ensure_resource_provider(ctx, uuid, name,
                                                       probably_new)["generation"])
        generation = self._put_with_generation(ctx, uuid, "inventories",
                                               {"inventories": inventory}, generation)
        for trait in sorted(t for t in traits if t.startswith("CUSTOM_")):
            self._check(self._request("PUT", f"/traits/{trait}", TRAITS_VERSION, ctx),
                        f"creating trait {trait}", (201, 204))
        self._put_with_generation(ctx, uuid, "traits", {"traits": sorted(traits)},
                                  generation)
        self._pushed[uuid] = wanted
        LOG.info("Reported provider %s (%s) to placement: %s; traits %s", name, uuid,
                 ", ".join(f"{rc} {inv['total']}" for rc, inv in sorted(inventory.items())),
                 ", ".join(sorted(traits)) or "none")
        return True

    def _put_with_generation(self, ctx: RequestContext, uuid: str, what: str,
                             body: dict[str, Any], generation: int) -> int:
        """Write with the provider's generation as last seen (the answer of the previous
        write: no read before each write), re-reading it when a concurrent writer (the
        scheduler's claims bump it too) got there first. Returns the new generation."""
        for _ in range(CONFLICT_RETRIES):
            body["resource_provider_generation"] = generation
            response = self._request("PUT", f"/resource_providers/{uuid}/{what}",
                                     PROVIDER_WRITE_VERSION, ctx, body)
            if response.status_code != 409 or \
                    "placement.concurrent_update" not in _error_codes(response):
                self._check(response, f"writing {what} of provider {uuid}")
                return int(_json(response)["resource_provider_generation"])
            generation = self._provider_generation(ctx, uuid)
        raise PlacementUnavailable(reason=f"{what} of provider {uuid} kept changing "
                                          "under us")

    def aggregate_add_host(self, ctx: RequestContext, aggregate_uuid: str,
                           host: str) -> None:
        self._change_aggregates(ctx, host, lambda aggs: aggs | {aggregate_uuid})

    def aggregate_remove_host(self, ctx: RequestContext, aggregate_uuid: str,
                              host: str) -> None:
        self._change_aggregates(ctx, host, lambda aggs: aggs - {aggregate_uuid})

    def _change_aggregates(self, ctx: RequestContext, host: str, change: Any) -> None:
        """Nova mirrors host aggregates into placement (by the providers named after the
        host) so that zones and tenant isolation can be asked of placement."""
        query = urllib.parse.urlencode({"name": host})
        response = self._check(self._get(f"/resource_providers?{query}", PROVIDER_VERSION,
                                         ctx), f"finding the provider of {host}")
        for provider in response.json()["resource_providers"]:
            url = f"/resource_providers/{provider['uuid']}/aggregates"
            for _ in range(CONFLICT_RETRIES):
                current = self._check(self._get(url, AGGREGATES_VERSION, ctx),
                                      f"reading aggregates of {host}").json()
                body = {"aggregates": sorted(change(set(current["aggregates"]))),
                        "resource_provider_generation":
                            current["resource_provider_generation"]}
                put = self._request("PUT", url, AGGREGATES_VERSION, ctx, body)
                if put.status_code != 409:
                    self._check(put, f"writing aggregates of {host}")
                    break

    # --- candidates and claims (scheduler, conductor) ------------------------------

    def get_allocation_candidates(self, ctx: RequestContext, query: str
                                  ) -> AllocationCandidates:
        """For a querystring built by novalite.scheduler.resource_request."""
        response = self._check(self._request("GET", f"/allocation_candidates?{query}",
                                             CANDIDATES_VERSION, ctx, stream=True),
                               "asking for allocation candidates")
        try:
            return AllocationCandidates.decode(_whole_body(response))
        except MalformedAnswer as e:
            raise PlacementUnavailable(
                reason=f"asking for allocation candidates answered a body that is not "
                       f"placement's: {e}") from None

    def claim_resources(self, ctx: RequestContext, consumer_uuid: str,
                        allocation_request: AllocationRequest, project_id: str,
                        user_id: str) -> Claim:
        """Claim for a new consumer. A consumer found holding exactly this claim already
        is `Claim.FOUND`: this claim's own request sent again (placement, or the
        connection, died between its commit and its answer), or another handling's of
        the same request (see novalite.objects.claimant)."""
        allocations = allocation_request.to_placement()
        refused = self._put_allocations(ctx, consumer_uuid, allocations, project_id,
                                        user_id, consumer_generation=None)
        if refused is None:
            return Claim.MADE
        if "consumer" not in refused.lower():
            return Claim.REFUSED
        held = self.get_allocations_for_consumer(ctx, consumer_uuid)
        same = (held.get("project_id"), held.get("user_id")) == (project_id, user_id) and \
            {rp: a["resources"] for rp, a in held.get("allocations", {}).items()} == \
            {rp: a["resources"] for rp, a in allocations.items()}
        if not same:
            return Claim.REFUSED
        LOG.info("%s already holds the allocation it claimed: the claim was sent again "
                 "after its answer was lost, or another handling of the request made it",
                 consumer_uuid)
        return Claim.FOUND

    def put_allocations(self, ctx: RequestContext, consumer_uuid: str,
                        allocations: dict[str, dict[str, Any]], project_id: str, user_id: str,
                        consumer_generation: int | None) -> bool:
        """Replace the consumer's allocations (`consumer_generation` as last read, None
        for a new consumer); False when placement refuses."""
        return self._put_allocations(ctx, consumer_uuid, allocations, project_id, user_id,
                                     consumer_generation) is None

    def _put_allocations(self, ctx: RequestContext, consumer_uuid: str,
                         allocations: dict[str, dict[str, Any]], project_id: str,
                         user_id: str, consumer_generation: int | None) -> str | None:
        """None once placement took the allocations, else why it refused them."""
        body = {"allocations": allocations, "project_id": project_id, "user_id": user_id,
                "consumer_generation": consumer_generation, "consumer_type": "INSTANCE"}
        why = ""
        for _ in range(CONFLICT_RETRIES):
            response = self._request("PUT", f"/allocations/{consumer_uuid}", CLAIM_VERSION,
                                     ctx, body)
            if response.status_code == 204:
                return None
            if response.status_code != 409:
                self._check(response, f"allocating for {consumer_uuid}")
            why = _errors(response)
            # A provider generation race alone is worth another try; a consumer
            # generation conflict or missing capacity is not.
            if "placement.concurrent_update" not in _error_codes(response) or \
                    "consumer" in why.lower():
                LOG.info("Placement refused the allocation for %s: %s", consumer_uuid, why)
                return why
        return why

    def move_allocations(self, ctx: RequestContext, source_consumer: str,
                         target_consumer: str, source_type: str = "INSTANCE",
                         target_type: str = "MIGRATION") -> bool:
        """Give the target consumer the source's allocations (replacing its own) and
        leave the source with none, in one atomic POST /allocations (Nova's
        move_allocations: a move's source claim passing between the instance and the
        migration record). False when the source holds nothing or placement refuses."""
        for _ in range(CONFLICT_RETRIES):
            source = self.get_allocations_for_consumer(ctx, source_consumer)
            if not source.get("allocations"):
                return False
            target = self.get_allocations_for_consumer(ctx, target_consumer)
            owner = {"project_id": source["project_id"], "user_id": source["user_id"]}
            body = {
                target_consumer: {"allocations": source["allocations"], **owner,
                                  "consumer_generation": target.get("consumer_generation"),
                                  "consumer_type": target_type},
                source_consumer: {"allocations": {}, **owner,
                                  "consumer_generation": source["consumer_generation"],
                                  "consumer_type": source_type},
            }
            response = self._request("POST", "/allocations", CLAIM_VERSION, ctx, body)
            if response.status_code == 204:
                return True
            if response.status_code != 409:
                self._check(response, f"moving allocations of {source_consumer}")
            LOG.info("Moving the allocations of %s to %s conflicted: %s", source_consumer,
                     target_consumer, _errors(response))
        return False

    def get_allocations_for_resource_provider(self, ctx: RequestContext, rp_uuid: str
                                              ) -> dict[str, dict[str, Any]]:
        """{consumer uuid: {"resources": {...}}} of everything held on the provider."""
        response = self._check(self._get(f"/resource_providers/{rp_uuid}/allocations",
                                         PROVIDER_VERSION, ctx),
                               f"reading allocations on provider {rp_uuid}")
        allocations: dict[str, dict[str, Any]] = _json(response)["allocations"]
        return allocations

    def get_provider_traits(self, ctx: RequestContext, rp_uuid: str) -> set[str]:
        """What the provider says it can do, as placement holds it now (an operator's
        traits included), not as this client last wrote it."""
        response = self._check(self._get(f"/resource_providers/{rp_uuid}/traits",
                                         TRAITS_VERSION, ctx),
                               f"reading traits of provider {rp_uuid}")
        return set(_json(response)["traits"])

    def get_allocations_for_consumer(self, ctx: RequestContext, consumer_uuid: str
                                     ) -> dict[str, Any]:
        """Placement's body: {"allocations": {rp: {"resources": ...}},
        "consumer_generation": n, "project_id", "user_id"} (empty for an unknown one)."""
        response = self._check(self._get(f"/allocations/{consumer_uuid}", CLAIM_VERSION,
                                         ctx), f"reading allocations of {consumer_uuid}")
        return _json(response)

    def delete_allocation_for_instance(self, ctx: RequestContext,
                                       consumer_uuid: str) -> bool:
        """Free what the instance holds; True if it held anything."""
        response = self._request("DELETE", f"/allocations/{consumer_uuid}", CLAIM_VERSION,
                                 ctx)
        if response.status_code == 404:
            return False
        self._check(response, f"deleting allocations of {consumer_uuid}")
        LOG.info("Deleted allocations of %s", consumer_uuid)
        return True


def free_allocations(ctx: RequestContext, instance_uuid: str,
                     client: SchedulerReportClient | None = None) -> None:
    """Give an instance's placement claim back (delete, failed build, reschedule). An
    unreachable placement is logged, not raised: the instance's own state change must go
    on, and `novalite-manage placement audit` finds what was left behind."""
    try:
        (client or report_client()).delete_allocation_for_instance(ctx, instance_uuid)
    except exception.NovaliteException as exc:
        LOG.error("Could not free the placement allocations of %s: %s", instance_uuid,
                  exc.format_message())


_client: SchedulerReportClient | None = None
_client_lock = threading.Lock()


def report_client() -> SchedulerReportClient:
    """One client per process (its connection pool and what it has written)."""
    global _client
    with _client_lock:
        if _client is None:
            _client = SchedulerReportClient()
        return _client


def use_local_placement(endpoint: str, auth: Any | None, app: Any = None) -> None:
    """The all-in-one's services reach placement on its own HTTP server (unless the
    [placement] options say otherwise), with `auth` when tokens are checked; `app`: that
    server's app, called in-process."""
    reset()
    adapters.use_local(GROUP, endpoint, auth, app)


def reset() -> None:
    """Forget the client (configuration changed: tests, a new all-in-one)."""
    global _client
    with _client_lock:
        _client = None
    adapters.forget_local(GROUP)
