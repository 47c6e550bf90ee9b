"""What os-services does to a service beyond its record (Nova's HostAPI): a compute
disabled or enabled tells its host, which sets COMPUTE_STATUS_DISABLED on its providers
in placement; a compute deleted leaves its aggregates and placement with it, and may not
be deleted while it hosts servers."""

from __future__ import annotations

import logging

from novalite import exception
from novalite.clients import placement as placement_client
from novalite.compute import aggregates
from novalite.compute.rpcapi import ComputeAPI
from novalite.context import RequestContext
from novalite.db.api import aggregates as aggregates_db
from novalite.db.api import compute_nodes, instances, services
from novalite.notifications import events
from novalite.objects.service import Service
from novalite.rpc.errors import MessagingError
from novalite.service import liveness

LOG = logging.getLogger(__name__)
COMPUTE_BINARY = aggregates.COMPUTE_BINARY


def compute_is_up(host: str) -> bool:
    """Whether the compute service of `host` heartbeats (a forced-down one does not)."""
    try:
        service = services.service_get_by_host_and_binary(host, COMPUTE_BINARY)
    except exception.ComputeHostNotFound:
        return False
    return liveness.service_is_up(service)


def update(ctx: RequestContext, service: Service, values: dict[str, object]) -> Service:
    """Record the change; a compute whose `disabled` changed is told at once (a host
    that is down learns it when it starts, from its service record)."""
    updated = services.service_update(service.id, values)
    events.service_update(updated, ctx)
    if updated.binary == COMPUTE_BINARY and updated.disabled != service.disabled:
        try:
            ComputeAPI().set_host_enabled(ctx, updated.host, not updated.disabled)
        except Exception:
            LOG.exception("Could not tell compute %s that it is now %s", updated.host,
                          "disabled" if updated.disabled else "enabled")
    return updated


def host_uptime(ctx: RequestContext, host: str) -> str | None:
    """The host's uptime line, or None where it cannot be had (a driver without it, a
    compute that does not answer): a listing of every host must not fail for one."""
    try:
        return ComputeAPI().get_host_uptime(ctx, host)
    except (exception.FeatureNotSupported, MessagingError):
        return None


def delete(ctx: RequestContext, service: Service) -> None:
    if service.binary == COMPUTE_BINARY:
        if instances.instance_ids_by_host([service.host]):
            raise exception.ServiceHasInstances()
        _forget_compute(ctx, service.host)
    services.service_destroy(service.id)


def _forget_compute(ctx: RequestContext, host: str) -> None:
    """Out of its aggregates, its providers out of placement (failures logged, as in
    Nova: the service goes regardless)."""
    api = aggregates.AggregateAPI()
    for aggregate in aggregates_db.aggregates_by_host().get(host, []):
        api.remove_host(aggregate.id, host)
    client = placement_client.report_client()
    for node in compute_nodes.compute_node_get_by_host(host):
        try:
            client.delete_resource_provider(ctx, node.uuid)
        except exception.NovaliteException as exc:
            LOG.error("Could not delete the provider of node %s: %s", node.uuid,
                      exc.format_message())
