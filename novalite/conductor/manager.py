"""The conductor's RPC endpoints: build orchestration, and database access for computes."""

from __future__ import annotations

from typing import Any

from novalite.context import RequestContext
from novalite.db.api import actions, compute_nodes, instances, server_groups, services
from novalite.manager import Manager
from novalite.objects.compute_node import ComputeNode
from novalite.objects.instance import Instance
from novalite.objects.request_spec import FilterProperties, RequestSpec, Selection
from novalite.objects.service import Service
from novalite.rpc import Target


class ComputeTaskManager:
    target = Target(namespace="compute_task", version="1.0")

    def __init__(self) -> None:
        from novalite.conductor.build import BuildTasks

        self.tasks = BuildTasks()

    def schedule_and_build_instances(self, ctx: RequestContext, request_spec: RequestSpec,
                                     instance_uuids: list[str]) -> None:
        self.tasks.schedule_and_build(ctx, request_spec, instance_uuids)

    def build_instances(self, ctx: RequestContext, instance_uuid: str,
                        request_spec: RequestSpec, filter_properties: FilterProperties,
                        host_list: list[Selection]) -> None:
        self.tasks.reschedule(ctx, instance_uuid, request_spec, filter_properties, host_list)


class ConductorManager(Manager):
    """Database operations on behalf of compute services."""

    target = Target(version="1.2")

    def __init__(self, host: str) -> None:
        super().__init__(host)
        self.additional_endpoints = [ComputeTaskManager()]

    def service_get_or_create(self, ctx: RequestContext, host: str, binary: str,
                              topic: str | None) -> Service:
        return services.service_get_or_create(host, binary, topic)

    def service_heartbeat(self, ctx: RequestContext, service_id: int) -> None:
        services.service_heartbeat(service_id)

    def compute_node_save(self, ctx: RequestContext, node: ComputeNode,
                          service_id: int | None = None) -> ComputeNode:
        return compute_nodes.compute_node_save(node, service_id)

    def instance_get(self, ctx: RequestContext, instance_uuid: str) -> Instance:
        return instances.instance_get(instance_uuid)

    def instance_get_all_by_host(self, ctx: RequestContext, host: str) -> list[Instance]:
        return instances.instance_get_all_by_host(host)

    def instance_update(self, ctx: RequestContext, instance_uuid: str, values: dict[str, Any],
                        expected_task_state: list | None = None,
                        check_task_state: bool = True) -> Instance:
        expected = expected_task_state if check_task_state else instances.ANY
        return instances.instance_update(instance_uuid, values, expected_task_state=expected)

    def instance_destroy(self, ctx: RequestContext, instance_uuid: str) -> Instance:
        return instances.instance_destroy(instance_uuid)

    def instance_fault_create(self, ctx: RequestContext, instance_uuid: str, code: int,
                              message: str, details: str | None, host: str | None) -> None:
        actions.fault_create(instance_uuid, code, message, details, host)

    def action_start(self, ctx: RequestContext, instance_uuid: str, action: str) -> None:
        actions.action_start(ctx, instance_uuid, action)

    def action_event_start(self, ctx: RequestContext, instance_uuid: str, event: str,
                           host: str | None) -> None:
        actions.action_event_start(ctx, instance_uuid, event, host)

    def action_event_finish(self, ctx: RequestContext, instance_uuid: str, event: str,
                            result: str, traceback: str | None = None) -> None:
        actions.action_event_finish(ctx, instance_uuid, event, result, traceback)

    def instance_group_placed_before(self, ctx: RequestContext, group_uuid: str,
                                     instance_uuid: str) -> dict | None:
        return server_groups.group_placed_before(group_uuid, instance_uuid)
