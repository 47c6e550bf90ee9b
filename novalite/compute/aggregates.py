"""Host aggregates and availability zones as Nova's compute.api.AggregateAPI keeps them:
a host is in at most one zone, a zone has a name, and no change may move a host that has
instances into another zone. The checks run as guards inside the database transaction
that makes the change (see novalite.db.api.aggregates), so two racing requests cannot
both pass them. Each change is notified as Nova notifies it (aggregate.<action>.start with
the aggregate as it was, .end as the change left it)."""

from __future__ import annotations

import logging
import uuid as uuidlib
from collections.abc import Callable
from typing import Any, TypeVar

from novalite import context, exception
from novalite.clients import glance
from novalite.clients import placement as placement_client
from novalite.conductor.rpcapi import ComputeTaskAPI
from novalite.db.api import aggregates as db
from novalite.db.api import services
from novalite.notifications import events, notifier
from novalite.notifications.objects.aggregate import AggregatePayload
from novalite.objects.aggregate import Aggregate

LOG = logging.getLogger(__name__)
T = TypeVar("T")

AZ = db.AZ_KEY
COMPUTE_BINARY = "novalite-compute"
_MOVE = ("The host cannot be {verb} the aggregate as the availability zone of the host "
         "would change from '{old}' to '{new}' but the host already has {count} "
         "instance(s). Changing the AZ of an existing instance is not supported by this "
         "action. Move the instances away from this host then try again. If you need to "
         "move the instances between AZs then you can use shelve_offload and unshelve to "
         "achieve this.")


def _zone_change_guard(metadata: dict[str, Any], invalid: type, hosts: list[str] | None = None,
                       check_instances: bool = False) -> db.Guard:
    """Nova's is_safe_to_update_az: a zone named at all, not clashing with another zone
    of the hosts, and (when asked) not moving hosts that have instances."""

    def guard(snap: db.Snapshot) -> None:
        if AZ not in metadata:
            return
        agg, new_az = snap.aggregate, metadata[AZ]
        if not new_az:
            raise invalid(aggregate_id=agg.id, reason=f"Aggregate {agg.name} does "
                          "not support empty named availability zone")
        checked = hosts or agg.hosts
        conflicting = [a.availability_zone for a in snap.zoned_aggregates(checked)
                       if a.availability_zone != new_az and a.id != agg.id]
        if conflicting:
            raise invalid(aggregate_id=agg.id, reason="One or more hosts already in "
                          f"availability zone(s) {conflicting}")
        if check_instances and agg.availability_zone != new_az and \
                snap.instance_count(checked):
            raise invalid(aggregate_id=agg.id,
                          reason="One or more hosts contain instances in this zone")

    return guard


def _host_zone(snap: db.Snapshot, host: str, excluding: int | None = None) -> str | None:
    zones = sorted(a.metadata[AZ] for a in snap.zoned_aggregates([host])
                   if a.id != excluding)
    return zones[0] if zones else None


def _add_guard(host: str) -> db.Guard:
    """The aggregate's zone must not clash with the host's, nor move its instances."""

    def guard(snap: db.Snapshot) -> None:
        agg = snap.aggregate
        _zone_change_guard(agg.metadata, exception.InvalidAggregateActionAdd,
                           hosts=[host])(snap)
        new_az = agg.availability_zone
        count = snap.instance_count([host]) if new_az else 0
        old_az = _host_zone(snap, host) if count else None
        if count and old_az != new_az:
            raise exception.InvalidAggregateActionAdd(aggregate_id=agg.id, reason=_MOVE.format(
                verb="added to", old=old_az, new=new_az, count=count))

    return guard


def _remove_guard(host: str) -> db.Guard:
    """Leaving the aggregate must not move the host's instances to another zone."""

    def guard(snap: db.Snapshot) -> None:
        agg = snap.aggregate
        current_az = agg.availability_zone
        count = snap.instance_count([host]) if current_az else 0
        new_az = _host_zone(snap, host, excluding=agg.id) if count else None
        if count and current_az != new_az:
            raise exception.InvalidAggregateActionDelete(
                aggregate_id=agg.id, reason=_MOVE.format(
                    verb="removed from", old=current_az, new=new_az, count=count))

    return guard


def _compute_service(host: str) -> None:
    """Only compute hosts join aggregates (an exact name: MariaDB compares without case)."""
    if services.service_get_by_host_and_binary(host, COMPUTE_BINARY).host != host:
        raise exception.ComputeHostNotFound(host=host)


class AggregateAPI:
    def create(self, name: str, availability_zone: str | None) -> Aggregate:
        metadata = {AZ: availability_zone} if availability_zone else None
        uuid = str(uuidlib.uuid4())
        with events.start_end("aggregate.create", lambda: AggregatePayload(
                id=None, uuid=uuid, name=name, hosts=None, metadata=metadata)) as outcome:
            created = db.aggregate_create(name, metadata, uuid=uuid)
            outcome.end = lambda: AggregatePayload.from_aggregate(created)
        return created

    def get(self, aggregate_id: int) -> Aggregate:
        return db.aggregate_get(aggregate_id)

    def get_all(self) -> list[Aggregate]:
        return db.aggregate_get_all()

    def update(self, aggregate_id: int, values: dict[str, Any]) -> Aggregate:
        """A new name and/or zone (Nova's PUT; a null zone is refused as empty)."""
        zone = {AZ: values[AZ]} if AZ in values else {}
        return _notified("update_prop", aggregate_id, lambda: db.aggregate_update(
            aggregate_id, name=values.get("name"), metadata=zone,
            guard=_zone_change_guard(zone, exception.InvalidAggregateActionUpdate,
                                     check_instances=True)))

    def update_metadata(self, aggregate_id: int,
                        metadata: dict[str, str | None]) -> Aggregate:
        return _notified("update_metadata", aggregate_id, lambda: db.aggregate_update(
            aggregate_id, metadata=metadata,
            guard=_zone_change_guard(metadata, exception.InvalidAggregateActionUpdateMeta,
                                     check_instances=True)))

    def delete(self, aggregate_id: int) -> None:
        def delete() -> Aggregate | None:
            db.aggregate_delete(aggregate_id)
            return None

        _notified("delete", aggregate_id, delete)

    def add_host(self, aggregate_id: int, host: str) -> Aggregate:
        _compute_service(host)
        aggregate = _notified("add_host", aggregate_id, lambda: db.aggregate_add_host(
            aggregate_id, host, guard=_add_guard(host)))
        _mirror(placement_client.SchedulerReportClient.aggregate_add_host, aggregate, host)
        return aggregate

    def remove_host(self, aggregate_id: int, host: str) -> Aggregate:
        _compute_service(host)
        aggregate = _notified("remove_host", aggregate_id, lambda: db.aggregate_remove_host(
            aggregate_id, host, guard=_remove_guard(host)))
        _mirror(placement_client.SchedulerReportClient.aggregate_remove_host, aggregate, host)
        return aggregate

    def cache_images(self, ctx: context.RequestContext, aggregate: Aggregate,
                     image_ids: list[str]) -> None:
        """Every image found (as the caller sees it) before any host is asked to fetch
        it; the conductor asks the hosts."""
        for image_id in image_ids:
            glance.show(ctx, image_id)
        ComputeTaskAPI().cache_images(ctx, aggregate, image_ids)


def _notified(action: str, aggregate_id: int, change: Callable[[], T]) -> T:
    """Run `change` between aggregate.<action>.start (the aggregate as it is: read only
    when notifications are sent) and .end (as `change` returned it, or as it was when
    `change` returns None: a delete)."""
    if not notifier.enabled():
        return change()
    before = AggregatePayload.from_aggregate(db.aggregate_get(aggregate_id))
    with events.start_end(f"aggregate.{action}", lambda: before) as outcome:
        after = change()
        if isinstance(after, Aggregate):
            outcome.end = lambda: AggregatePayload.from_aggregate(after)
    return after


def _mirror(change: Callable, aggregate: Aggregate, host: str) -> None:
    """Nova keeps placement's aggregates of the host's providers in step with host
    aggregates, so a zone can be asked of placement; a failure is logged, as in Nova
    (`novalite-manage placement sync_aggregates` puts it right)."""
    try:
        change(placement_client.report_client(), context.current(), aggregate.uuid, host)
    except exception.NovaliteException as exc:
        LOG.warning("Could not mirror aggregate %s of host %s to placement: %s",
                    aggregate.uuid, host, exc.format_message())
