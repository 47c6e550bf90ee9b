"""Clients of the conductor's two RPC APIs.

ComputeTaskAPI (namespace `compute_task`) starts orchestration: builds and reschedules.
ConductorAPI (no namespace) is the database for compute services, which have none.

Version history:
  compute_task 1.0: schedule_and_build_instances, build_instances
  compute_task 1.1: migrate_server (resize and cold migrate), reschedule_move
  compute_task 1.2: unshelve_instance
  compute_task 1.3: live_migrate_instance
  compute_task 1.4: evacuate_instance
  compute_task 1.5: cache_images (an aggregate's hosts download images ahead of boots)
  conductor    1.0: service_get_or_create, service_heartbeat, compute_node_save,
                    instance_get, instance_get_all_by_host, instance_update,
                    instance_destroy, instance_fault_create, action_event_start,
                    action_event_finish
  conductor    1.1: instance_group_placed_before (the computes' late server group check)
  conductor    1.2: action_start (a compute starting an action itself: the power sync)
  conductor    1.3: instance_info_cache_update (a compute caching the network info)
  conductor    1.4: migration_get, migration_update, migration_get_in_progress_by_host,
                    migration_get_unconfirmed_by_dest_compute, instance_update_flavor
                    (the computes' steps of a resize or cold migration)
  conductor    1.5: migration_update's expected_status (an abort racing a live
                    migration's start)
  conductor    1.6: instance_get_deleted (a compute's look for guests of deleted servers)
  conductor    1.7: block_device_mapping_get_all_by_instance, block_device_mapping_update,
                    block_device_mapping_destroy (a compute attaching and detaching
                    volumes)
  conductor    1.8: instance_update's expected_host (a compute taking a build only if
                    it is still the instance's host: a build sent twice, the first
                    failed and given back for a reschedule, is not run again)
  conductor    1.9: service_heartbeat's service_ids (a process's services beat in one
                    call: a compute simulating thousands of hosts made thousands)
  conductor    1.10: service_get_or_create_many, instance_get_all_by_hosts,
                    migration_get_in_progress_by_hosts, compute_node_save_many (a
                    compute simulating thousands of hosts registers them, reads what
                    each holds and writes their nodes in a few calls)
  conductor    1.11: instance_update's starts_event and ends_event (the update that
                    takes a build starts its action event, the one that makes it ACTIVE
                    ends it, each in the update's transaction: two calls fewer a build)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from novalite import exception
from novalite.context import RequestContext, get_admin_context
from novalite.notifications import instance_action
from novalite.objects.aggregate import Aggregate
from novalite.objects.block_device import BlockDeviceMapping
from novalite.objects.compute_node import ComputeNode
from novalite.objects.flavor import Flavor
from novalite.objects.image import ImageMeta
from novalite.objects.instance import Instance
from novalite.objects.migration import Migration
from novalite.objects.network_info import VIF
from novalite.objects.request_spec import (
    FilterProperties,
    RequestSpec,
    Selection,
    UnshelvePlacement,
)
from novalite.objects.service import Service
from novalite.rpc.rpcapi import make_client

TOPIC = "conductor"
# The conductor's calls it runs again safely (ConductorManager's acked-when-done ones).
IDEMPOTENT = frozenset({
    "action_event_finish", "action_event_start",
    "block_device_mapping_get_all_by_instance", "block_device_mapping_update",
    "compute_node_save", "compute_node_save_many", "instance_fault_create", "instance_get",
    "instance_get_all_by_host", "instance_get_all_by_hosts", "instance_get_deleted",
    "instance_group_placed_before", "instance_info_cache_update", "instance_update",
    "migration_get", "migration_get_in_progress_by_host",
    "migration_get_in_progress_by_hosts", "migration_get_unconfirmed_by_dest_compute",
    "service_get_or_create", "service_get_or_create_many", "service_heartbeat"})


class ComputeTaskAPI:
    def __init__(self) -> None:
        self.client = make_client(TOPIC, "1.0", namespace="compute_task")

    def schedule_and_build_instances(self, ctx: RequestContext, request_spec: RequestSpec,
                                     instance_uuids: list[str],
                                     timeout: float | None = None) -> None:
        """`timeout`: how long the broker may take to accept the message."""
        self.client.prepare(timeout=timeout).cast(
            ctx, "schedule_and_build_instances", request_spec=request_spec,
            instance_uuids=instance_uuids)

    def build_instances(self, ctx: RequestContext, instance_uuid: str,
                        request_spec: RequestSpec, filter_properties: FilterProperties,
                        host_list: list[Selection]) -> None:
        """Reschedule one instance onto the next of its alternates."""
        self.client.cast(ctx, "build_instances", instance_uuid=instance_uuid,
                         request_spec=request_spec, filter_properties=filter_properties,
                         host_list=host_list)

    def migrate_server(self, ctx: RequestContext, instance_uuid: str, flavor: Flavor,
                       host: str | None, migration_type: str) -> None:
        """Start a resize (`flavor` the new one) or cold migration (`host`: the
        admin's requested destination)."""
        self.client.prepare(version="1.1").cast(
            ctx, "migrate_server", instance_uuid=instance_uuid, flavor=flavor, host=host,
            migration_type=migration_type)

    def reschedule_move(self, ctx: RequestContext, instance_uuid: str, migration: Migration,
                        request_spec: RequestSpec, host_list: list[Selection],
                        reason: str) -> None:
        """A destination refused the move: try the next alternate, or end the move."""
        self.client.prepare(version="1.1").cast(
            ctx, "reschedule_move", instance_uuid=instance_uuid, migration=migration,
            request_spec=request_spec, host_list=host_list, reason=reason)

    def unshelve_instance(self, ctx: RequestContext, instance_uuid: str, image: ImageMeta,
                          placement: UnshelvePlacement) -> None:
        """Schedule an offloaded server again and spawn it where it lands."""
        self.client.prepare(version="1.2").cast(
            ctx, "unshelve_instance", instance_uuid=instance_uuid, image=image,
            placement=placement)

    def live_migrate_instance(self, ctx: RequestContext, instance_uuid: str,
                              host: str | None, force: bool) -> None:
        self.client.prepare(version="1.3").cast(
            ctx, "live_migrate_instance", instance_uuid=instance_uuid, host=host,
            force=force)

    def evacuate_instance(self, ctx: RequestContext, instance_uuid: str, host: str | None,
                          force: bool, stopped: bool) -> None:
        self.client.prepare(version="1.4").cast(
            ctx, "evacuate_instance", instance_uuid=instance_uuid, host=host, force=force,
            stopped=stopped)

    def cache_images(self, ctx: RequestContext, aggregate: Aggregate,
                     image_ids: list[str]) -> None:
        self.client.prepare(version="1.5").cast(ctx, "cache_images", aggregate=aggregate,
                                                image_ids=image_ids)


class ConductorAPI:
    def __init__(self) -> None:
        self.client = make_client(TOPIC, "1.0", idempotent=IDEMPOTENT)

    def service_get_or_create(self, ctx: RequestContext, host: str, binary: str,
                              topic: str | None) -> Service:
        return self.client.call(ctx, "service_get_or_create", host=host, binary=binary,
                                topic=topic)

    def service_get_or_create_many(self, ctx: RequestContext, hosts: list[str], binary: str,
                                   topic: str | None) -> list[Service]:
        """The service of each of `hosts`, in their order (one call per host to a
        conductor older than 1.10)."""
        if self.client.can_send_version("1.10"):
            return self.client.prepare(version="1.10").call(
                ctx, "service_get_or_create_many", hosts=hosts, binary=binary, topic=topic)
        return [self.service_get_or_create(ctx, host, binary, topic) for host in hosts]

    def service_heartbeat(self, ctx: RequestContext, service_ids: list[int]) -> list[int]:
        """The ids of the services that have no record; a conductor older than 1.9 is
        called once per service."""
        if self.client.can_send_version("1.9"):
            return self.client.prepare(version="1.9").call(ctx, "service_heartbeat",
                                                           service_ids=service_ids)
        missing = []
        for service_id in service_ids:
            try:
                self.client.call(ctx, "service_heartbeat", service_id=service_id)
            except exception.ServiceNotFound:
                missing.append(service_id)
        return missing

    def compute_node_save(self, ctx: RequestContext, node: ComputeNode,
                          service_id: int | None = None) -> ComputeNode:
        return self.client.call(ctx, "compute_node_save", node=node, service_id=service_id)

    def compute_node_save_many(self, ctx: RequestContext,
                               saves: list[tuple[ComputeNode, int | None]]) -> None:
        """compute_node_save of each (node, service id) in one call (one call each to a
        conductor older than 1.10)."""
        if self.client.can_send_version("1.10"):
            self.client.prepare(version="1.10").call(ctx, "compute_node_save_many",
                                                     saves=saves)
            return
        for node, service_id in saves:
            self.compute_node_save(ctx, node, service_id)

    def instance_get(self, ctx: RequestContext, instance_uuid: str) -> Instance:
        return self.client.call(ctx, "instance_get", instance_uuid=instance_uuid)

    def instance_get_all_by_host(self, ctx: RequestContext, host: str) -> list[Instance]:
        return self.client.call(ctx, "instance_get_all_by_host", host=host)

    def instance_get_all_by_hosts(self, ctx: RequestContext, hosts: list[str]
                                  ) -> dict[str, list[Instance]]:
        """The instances of each of `hosts` that has any."""
        return self._by_hosts(ctx, "instance_get_all_by_hosts", hosts,
                              self.instance_get_all_by_host)

    def _by_hosts(self, ctx: RequestContext, method: str, hosts: list[str],
                  one: Callable[[RequestContext, str], list[Any]]) -> dict[str, list[Any]]:
        """A read of many hosts in one call; `one` per host to a conductor older than
        1.10 (the hosts with nothing left out, as the conductor does)."""
        if self.client.can_send_version("1.10"):
            return self.client.prepare(version="1.10").call(ctx, method, hosts=hosts)
        return {host: found for host in hosts if (found := one(ctx, host))}

    def instance_get_deleted(self, ctx: RequestContext, uuids: list[str]) -> list[Instance]:
        """The deleted servers of `uuids`; none from a conductor older than 1.6 (its
        computes leave such guests alone until it is upgraded)."""
        if not self.client.can_send_version("1.6"):
            return []
        return self.client.prepare(version="1.6").call(ctx, "instance_get_deleted",
                                                       uuids=uuids)

    def instance_update(self, ctx: RequestContext, instance_uuid: str, values: dict[str, Any],
                        expected_task_state: list | None = None,
                        check_task_state: bool = True,
                        expected_host: str | None = None,
                        starts_event: str | None = None,
                        ends_event: str | None = None) -> Instance:
        """The instance as saved, also the newest copy of it for the `.end`
        notification of an action running on it in this thread (as Nova's reads the
        instance its saves changed). `expected_host`: only if the instance is (still)
        on that host; a conductor older than 1.8 does not check it. `starts_event` (on
        `expected_host`) and `ends_event` (a success): the action event the update
        starts or ends, committed with it; from a conductor older than 1.11, each
        recorded by a call of its own after the update."""
        kwargs: dict[str, Any] = {}
        client = self.client
        if expected_host is not None and client.can_send_version("1.8"):
            client, kwargs["expected_host"] = client.prepare(version="1.8"), expected_host
        along = bool(starts_event or ends_event) and client.can_send_version("1.11")
        if along:
            client = client.prepare(version="1.11")
            kwargs.update(starts_event=starts_event, ends_event=ends_event)
        updated = instance_action.record(client.call(
            ctx, "instance_update", instance_uuid=instance_uuid, values=values,
            expected_task_state=expected_task_state, check_task_state=check_task_state,
            **kwargs))
        if not along and starts_event:
            self.action_event_start(ctx, instance_uuid, starts_event, expected_host)
        if not along and ends_event:
            self.action_event_finish(ctx, instance_uuid, ends_event, "Success")
        return updated

    def instance_destroy(self, ctx: RequestContext, instance_uuid: str) -> Instance:
        return self.client.call(ctx, "instance_destroy", instance_uuid=instance_uuid)

    def instance_fault_create(self, ctx: RequestContext, instance_uuid: str, code: int,
                              message: str, details: str | None, host: str | None) -> None:
        self.client.call(ctx, "instance_fault_create", instance_uuid=instance_uuid, code=code,
                         message=message, details=details, host=host)

    def action_start(self, ctx: RequestContext, instance_uuid: str, action: str) -> None:
        self.client.prepare(version="1.2").call(ctx, "action_start",
                                                instance_uuid=instance_uuid, action=action)

    def instance_info_cache_update(self, ctx: RequestContext, instance_uuid: str,
                                   network_info: list[VIF]) -> None:
        self.client.prepare(version="1.3").call(ctx, "instance_info_cache_update",
                                                instance_uuid=instance_uuid,
                                                network_info=network_info)

    def migration_get(self, ctx: RequestContext, migration_uuid: str) -> Migration:
        return self.client.prepare(version="1.4").call(ctx, "migration_get",
                                                       migration_uuid=migration_uuid)

    def migration_update(self, ctx: RequestContext, migration_uuid: str,
                         values: dict[str, Any],
                         expected_status: list[str] | None = None) -> Migration:
        if expected_status is None:
            return self.client.prepare(version="1.4").call(
                ctx, "migration_update", migration_uuid=migration_uuid, values=values)
        return self.client.prepare(version="1.5").call(
            ctx, "migration_update", migration_uuid=migration_uuid, values=values,
            expected_status=expected_status)

    def migration_get_in_progress_by_host(self, ctx: RequestContext, host: str
                                          ) -> list[Migration]:
        """Moves holding resources on `host`; none from a conductor older than 1.4
        (which knows no moves)."""
        if not self.client.can_send_version("1.4"):
            return []
        return self.client.prepare(version="1.4").call(
            ctx, "migration_get_in_progress_by_host", host=host)

    def migration_get_in_progress_by_hosts(self, ctx: RequestContext, hosts: list[str]
                                           ) -> dict[str, list[Migration]]:
        """The moves in progress of each of `hosts` that has any."""
        return self._by_hosts(ctx, "migration_get_in_progress_by_hosts", hosts,
                              self.migration_get_in_progress_by_host)

    def migration_get_unconfirmed_by_dest_compute(self, ctx: RequestContext, window: int,
                                                  dest_compute: str) -> list[Migration]:
        return self.client.prepare(version="1.4").call(
            ctx, "migration_get_unconfirmed_by_dest_compute", window=window,
            dest_compute=dest_compute)

    def instance_update_flavor(self, ctx: RequestContext, instance_uuid: str,
                               values: dict[str, Any], expected_task_state: list,
                               cur: Flavor, old: Flavor | None, new: Flavor | None
                               ) -> Instance:
        """A guarded instance update that also sets the flavors of a move (recorded as
        instance_update's)."""
        return instance_action.record(self.client.prepare(version="1.4").call(
            ctx, "instance_update_flavor", instance_uuid=instance_uuid, values=values,
            expected_task_state=expected_task_state, cur=cur, old=old, new=new))

    def block_device_mapping_get_all_by_instance(self, ctx: RequestContext,
                                                 instance_uuid: str
                                                 ) -> list[BlockDeviceMapping]:
        """The instance's volumes; none from a conductor older than 1.7 (whose API never
        attached one)."""
        if not self.client.can_send_version("1.7"):
            return []
        return self.client.prepare(version="1.7").call(
            ctx, "block_device_mapping_get_all_by_instance", instance_uuid=instance_uuid)

    def block_device_mapping_update(self, ctx: RequestContext, bdm_uuid: str,
                                    values: dict[str, Any]) -> BlockDeviceMapping:
        return self.client.prepare(version="1.7").call(
            ctx, "block_device_mapping_update", bdm_uuid=bdm_uuid, values=values)

    def block_device_mapping_destroy(self, ctx: RequestContext, bdm_uuid: str) -> None:
        self.client.prepare(version="1.7").call(ctx, "block_device_mapping_destroy",
                                                bdm_uuid=bdm_uuid)

    def action_event_start(self, ctx: RequestContext, instance_uuid: str, event: str,
                           host: str | None) -> None:
        self.client.call(ctx, "action_event_start", instance_uuid=instance_uuid, event=event,
                         host=host)

    def action_event_finish(self, ctx: RequestContext, instance_uuid: str, event: str,
                            result: str, traceback: str | None = None) -> None:
        self.client.call(ctx, "action_event_finish", instance_uuid=instance_uuid, event=event,
                         result=result, traceback=traceback)

    def instance_group_placed_before(self, ctx: RequestContext, group_uuid: str,
                                     instance_uuid: str) -> dict | None:
        """The group's policy, rules and the hosts of the members placed before this
        instance; None from a 1.0 conductor (which cannot tell: no late check)."""
        if not self.client.can_send_version("1.1"):
            return None
        return self.client.prepare(version="1.1").call(
            ctx, "instance_group_placed_before", group_uuid=group_uuid,
            instance_uuid=instance_uuid)


class ConductorServiceRecords:
    """Service records for services without database access (compute)."""

    def __init__(self, api: ConductorAPI | None = None) -> None:
        self.api = api or ConductorAPI()

    def get_or_create(self, hosts: list[str], binary: str, topic: str | None
                      ) -> list[Service]:
        return self.api.service_get_or_create_many(get_admin_context(), hosts, binary, topic)

    def heartbeat(self, service_ids: list[int]) -> list[int]:
        return self.api.service_heartbeat(get_admin_context(), service_ids)
