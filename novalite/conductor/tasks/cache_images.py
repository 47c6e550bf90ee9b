"""Image pre-caching across a host aggregate (Nova's conductor cache_images): each host
of the aggregate that is up is asked, one after the other, to download the images into
its cache; a host that is down is skipped. aggregate.cache_images.start and .end frame
the whole, one .progress per host says which images it holds and which it failed, and
the log sums it up as Nova's does."""

from __future__ import annotations

import collections
import functools
import logging
import time

from novalite import exception
from novalite.compute import rpcapi as compute_rpcapi
from novalite.context import RequestContext
from novalite.db.api import services
from novalite.notifications import events
from novalite.notifications.objects.aggregate import AggregateCachePayload, AggregatePayload
from novalite.objects.aggregate import Aggregate
from novalite.service.liveness import service_is_up

LOG = logging.getLogger(__name__)

CONDUCTOR = "novalite-conductor"
EVENT = "aggregate.cache_images"
STATUSES = ("cached", "existing", "error", "unsupported")


def _up(host: str) -> bool:
    try:
        return service_is_up(services.service_get_by_host_and_binary(host, "novalite-compute"))
    except exception.NotFound:
        return False


def cache_images(ctx: RequestContext, compute: compute_rpcapi.ComputeAPI,
                 aggregate: Aggregate, image_ids: list[str]) -> None:
    started = time.monotonic()
    totals: collections.Counter[str] = collections.Counter()
    failed: collections.Counter[str] = collections.Counter()
    skipped = 0
    hosts = sorted(aggregate.hosts)
    with events.start_end(EVENT, lambda: AggregatePayload.from_aggregate(aggregate),
                          binary=CONDUCTOR, ctx=ctx):
        for index, host in enumerate(hosts, start=1):
            if _up(host):
                found = compute.cache_images(ctx, host, image_ids)
            else:
                LOG.info("Skipping image pre-cache request to compute %r because it is "
                         "not up", host)
                skipped += 1
                found = dict.fromkeys(image_ids, "skipped")
            totals.update(status for status in found.values() if status in STATUSES)
            failed.update(i for i, status in found.items() if status == "error")
            events.send(f"{EVENT}.progress", functools.partial(
                AggregateCachePayload.of, aggregate, host, found, index, len(hosts)),
                binary=CONDUCTOR, ctx=ctx)
    LOG.info("Image pre-cache operation for image(s) %s completed in %.2f seconds; "
             "%i cached, %i existing, %i errors, %i unsupported, %i skipped (down) hosts",
             ",".join(image_ids), time.monotonic() - started, totals["cached"],
             totals["existing"], totals["error"], totals["unsupported"], skipped)
    for image_id, fails in failed.items():
        LOG.warning("Image pre-cache operation for image %s failed %i times", image_id,
                    fails)
