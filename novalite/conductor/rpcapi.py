"""Clients of the conductor's two RPC APIs.

ComputeTaskAPI (namespace `compute_task`) starts orchestration: builds and reschedules.
ConductorAPI (no namespace) is the database for compute services, which have none.

Version history:
  compute_task 1.0: schedule_and_build_instances, build_instances
  conductor    1.0: service_get_or_create, service_heartbeat, compute_node_save,
                    instance_get, instance_get_all_by_host, instance_update,
                    instance_destroy, instance_fault_create, action_event_start,
                    action_event_finish
  conductor    1.1: instance_group_placed_before (the computes' late server group check)
  conductor    1.2: action_start (a compute starting an action itself: the power sync)
  conductor    1.3: instance_info_cache_update (a compute caching the network info)
"""

from __future__ import annotations

from typing import Any

from novalite.context import RequestContext, get_admin_context
from novalite.objects.compute_node import ComputeNode
from novalite.objects.instance import Instance
from novalite.objects.network_info import VIF
from novalite.objects.request_spec import FilterProperties, RequestSpec, Selection
from novalite.objects.service import Service
from novalite.rpc.rpcapi import make_client

TOPIC = "conductor"


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


class ConductorAPI:
    def __init__(self) -> None:
        self.client = make_client(TOPIC, "1.0")

    def service_get_or_create(self, ctx: RequestContext, host: str, binary: str,
                              topic: str | None) -> Service:
        return self.client.call(ctx, "service_get_or_create", host=host, binary=binary,
                                topic=topic)

    def service_heartbeat(self, ctx: RequestContext, service_id: int) -> None:
        self.client.call(ctx, "service_heartbeat", service_id=service_id)

    def compute_node_save(self, ctx: RequestContext, node: ComputeNode,
                          service_id: int | None = None) -> ComputeNode:
        return self.client.call(ctx, "compute_node_save", node=node, service_id=service_id)

    def instance_get(self, ctx: RequestContext, instance_uuid: str) -> Instance:
        return self.client.call(ctx, "instance_get", instance_uuid=instance_uuid)

    def instance_get_all_by_host(self, ctx: RequestContext, host: str) -> list[Instance]:
        return self.client.call(ctx, "instance_get_all_by_host", host=host)

    def instance_update(self, ctx: RequestContext, instance_uuid: str, values: dict[str, Any],
                        expected_task_state: list | None = None,
                        check_task_state: bool = True) -> Instance:
        return self.client.call(ctx, "instance_update", instance_uuid=instance_uuid,
                                values=values, expected_task_state=expected_task_state,
                                check_task_state=check_task_state)

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

    def get_or_create(self, host: str, binary: str, topic: str | None) -> Service:
        return self.api.service_get_or_create(get_admin_context(), host, binary, topic)

    def heartbeat(self, service_id: int) -> None:
        self.api.service_heartbeat(get_admin_context(), service_id)
