"""Placement pre-filters (Nova's request_filter): each narrows what placement is asked
for, so hosts that cannot qualify never reach the filters. Run in this order:

- map_az_to_placement_aggregate: a requested zone becomes member_of its aggregates
  (mirrored to placement when hosts join them); replaces AvailabilityZoneFilter.
- require_image_type_support: with `[scheduler] query_placement_for_image_type_support`,
  only hosts that carry COMPUTE_IMAGE_TYPE_<disk format>.
- compute_status_filter: never a host whose compute service is disabled
  (COMPUTE_STATUS_DISABLED).
- destination: a requested, forced or single named node becomes in_tree; requests that
  may need any host (several forced nodes, group and same/different host hints) drop the
  candidate limit, as Nova does.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from novalite.conf import CONF
from novalite.objects.request_spec import Destination, RequestSpec
from novalite.scheduler.host_table import HostTable
from novalite.scheduler.resource_request import ResourceRequest

LIMITLESS_HINTS = ("group", "same_host", "different_host")

Zones = Callable[[str], list[str]]  # zone name -> uuids of its aggregates


def map_az_to_placement_aggregate(spec: RequestSpec, request: ResourceRequest,
                                  table: HostTable, zones: Zones) -> None:
    if spec.availability_zone and CONF.scheduler.query_placement_for_availability_zone:
        uuids = zones(spec.availability_zone)
        if uuids:
            request.member_of.append(uuids)


def require_image_type_support(spec: RequestSpec, request: ResourceRequest,
                               table: HostTable, zones: Zones) -> None:
    disk_format = spec.image.disk_format if spec.image else None
    if CONF.scheduler.query_placement_for_image_type_support and disk_format:
        request.root_required.add(f"COMPUTE_IMAGE_TYPE_{disk_format.upper()}")


def compute_status_filter(spec: RequestSpec, request: ResourceRequest,
                          table: HostTable, zones: Zones) -> None:
    request.root_forbidden.add("COMPUTE_STATUS_DISABLED")


def destination_rows(table: HostTable, spec: RequestSpec) -> np.ndarray:
    """A requested destination, forced and ignored hosts apply before any filter, as
    in Nova."""
    keep = np.ones(len(table), dtype=bool)
    requested = spec.requested_destination or Destination()
    if requested.host:
        keep &= table.rows_named([requested.host])
    if requested.node:
        keep &= table.rows_of_nodes([requested.node])
    if spec.ignore_hosts:
        keep &= ~table.rows_named(spec.ignore_hosts)
    if spec.force_hosts:
        keep &= table.rows_named(spec.force_hosts)
    if spec.force_nodes:
        keep &= table.rows_of_nodes(spec.force_nodes)
    return np.flatnonzero(keep)


def destination(spec: RequestSpec, request: ResourceRequest, table: HostTable,
                zones: Zones) -> None:
    requested = spec.requested_destination or Destination()
    if spec.force_hosts or spec.force_nodes or requested.host or requested.node:
        rows = destination_rows(table, spec)
        if len(rows) == 1:
            request.in_tree = table.states[int(rows[0])].uuid
            return
        request.limit = None
    if any(spec.scheduler_hints.get(hint) for hint in LIMITLESS_HINTS):
        request.limit = None


ALL_REQUEST_FILTERS = (map_az_to_placement_aggregate, require_image_type_support,
                       compute_status_filter, destination)


def resource_request(spec: RequestSpec, table: HostTable, zones: Zones) -> ResourceRequest:
    """The allocation-candidates query for `spec`, pre-filters applied."""
    request = ResourceRequest.from_request_spec(spec)
    request.limit = CONF.scheduler.max_placement_results
    for request_filter in ALL_REQUEST_FILTERS:
        request_filter(spec, request, table, zones)
    return request
