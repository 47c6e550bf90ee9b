"""The conductor's RPC endpoints: build orchestration, and database access for computes."""

from __future__ import annotations

import datetime
import logging
from typing import Any

from novalite import exception, rpc
from novalite.clients import placement as placement_client
from novalite.compute.rpcapi import ComputeAPI
from novalite.conductor.tasks import (
    build,
    cache_images,
    evacuate,
    interrupted_moves,
    live_migrate,
    migrate,
    unshelve,
)
from novalite.conductor.tasks.base import TaskBase
from novalite.conf import CONF
from novalite.context import RequestContext
from novalite.db.api import (
    actions,
    block_devices,
    compute_nodes,
    info_caches,
    instances,
    migrations,
    server_groups,
    services,
    stuck_builds,
)
from novalite.db.session import Unit
from novalite.notifications import notifier
from novalite.objects import network_info as network_info_model
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
from novalite.periodic import periodic_task
from novalite.rpc import Target, ack_when_done
from novalite.rpc.transport import get_transport
from novalite.scheduler.rpcapi import SchedulerAPI
from novalite.service.manager import Manager
from novalite.timeutils import utcnow

LOG = logging.getLogger(__name__)
# A build no conductor took yet is waiting in a queue (or is sent again by its API when
# it restarts): the watchdog ends it only after this many of its timeouts.
QUEUED_TIMEOUTS = 10


def _states_set(instance: Instance, values: dict[str, Any]) -> bool:
    """Whether the instance is in the vm and task states `values` set (the change a
    guarded update makes; its other values may have been rounded by the database)."""
    return all(getattr(instance, key) == values[key]
               for key in ("vm_state", "task_state") if key in values)


class ComputeTaskManager:
    """The orchestration entry points. Those that start a build or a move, or carry on a
    build, are acknowledged only once handled (a conductor killed with them taken loses
    nothing: the broker hands them to its successor) and resume from what was done
    (tasks/build_resume.py, tasks/move_resume.py). reschedule_move keeps the early
    acknowledgement: its claim on the next alternate leaves no trace a second handling
    could find before it is handed on."""

    target = Target(namespace="compute_task", version="1.5")

    def __init__(self) -> None:
        self.scheduler = SchedulerAPI()
        self.compute = ComputeAPI()

    @ack_when_done
    def schedule_and_build_instances(self, ctx: RequestContext, request_spec: RequestSpec,
                                     instance_uuids: list[str]) -> None:
        self._run(build.ScheduleAndBuildTask(ctx, request_spec, instance_uuids,
                                             self.scheduler, self.compute))

    @ack_when_done
    def build_instances(self, ctx: RequestContext, instance_uuid: str,
                        request_spec: RequestSpec, filter_properties: FilterProperties,
                        host_list: list[Selection]) -> None:
        self._run(build.RescheduleTask(ctx, instance_uuid, request_spec, filter_properties,
                                       host_list, self.compute))

    @ack_when_done
    def migrate_server(self, ctx: RequestContext, instance_uuid: str, flavor: Flavor,
                       host: str | None, migration_type: str) -> None:
        self._run(migrate.MigrationTask(ctx, instance_uuid, flavor, host, migration_type,
                                        self.scheduler, self.compute))

    def reschedule_move(self, ctx: RequestContext, instance_uuid: str, migration: Migration,
                        request_spec: RequestSpec, host_list: list[Selection],
                        reason: str) -> None:
        self._run(migrate.RescheduleMoveTask(ctx, instance_uuid, migration, request_spec,
                                             host_list, reason, self.compute))

    @ack_when_done
    def unshelve_instance(self, ctx: RequestContext, instance_uuid: str, image: ImageMeta,
                          placement: UnshelvePlacement) -> None:
        self._run(unshelve.UnshelveTask(ctx, instance_uuid, image, placement,
                                        self.scheduler, self.compute))

    @ack_when_done
    def live_migrate_instance(self, ctx: RequestContext, instance_uuid: str,
                              host: str | None, force: bool) -> None:
        self._run(live_migrate.LiveMigrationTask(ctx, instance_uuid, host, force,
                                                 self.scheduler, self.compute))

    @ack_when_done
    def evacuate_instance(self, ctx: RequestContext, instance_uuid: str, host: str | None,
                          force: bool, stopped: bool) -> None:
        self._run(evacuate.EvacuateTask(ctx, instance_uuid, host, force, stopped,
                                        self.scheduler, self.compute))

    @ack_when_done
    def cache_images(self, ctx: RequestContext, aggregate: Aggregate,
                     image_ids: list[str]) -> None:
        """Safe to run again: a host that holds an image says it exists."""
        cache_images.cache_images(ctx, self.compute, aggregate, image_ids)

    @staticmethod
    def _run(task: TaskBase) -> None:
        """A task that failed has rolled back (its instances are buried with the reason):
        the failure is logged here, not raised to the caster, who cannot act on it."""
        try:
            task.execute()
        except exception.NovaliteException as exc:  # an outcome (NoValidHost, ...): said
            LOG.info("%s ended in %s and was rolled back", type(task).__name__,
                     type(exc).__name__)
        except Exception:
            LOG.exception("%s failed and was rolled back", type(task).__name__)


class ConductorManager(Manager):
    """Database operations on behalf of compute services.

    The calls a build makes, and those that read or set a value, are acknowledged only
    once handled (`ack_when_done`): a compute whose call was taken by a conductor
    killed then would otherwise wait out rpc_response_timeout for a reply that never
    comes, holding the build (or, for compute_node_save, its resource tracker and so
    every build on its host), and the build watchdog would bury what it held. Handled
    again by the successor, they reply then. Each is safe to run twice: reads, writes
    of a value, a fault written twice (the same one shown), and the guarded ones made
    so on a redelivery (an update whose state change is already there succeeded; an
    event already started or finished is left). The others (destroy, guarded moves,
    an action's start) keep the early acknowledgement."""

    target = Target(version="1.11")

    def __init__(self, host: str) -> None:
        super().__init__(host)
        self.additional_endpoints = [ComputeTaskManager()]

    def init_host(self) -> None:
        """Where messages die with the process (the in-process transport), the moves
        the conductor before this one held are ended now: nobody delivers them again."""
        if not get_transport(CONF.transport_url).keeps_messages:
            interrupted_moves.end_interrupted(utcnow())

    @periodic_task(spacing=lambda: CONF.conductor.build_watchdog_interval)
    def _build_watchdog(self, ctx: RequestContext) -> None:
        """End the builds nobody advances any more (their message was lost with a process
        or the broker, or their host died): ERROR with a fault, claims freed. Safe with
        any number of conductors (see novalite.db.api.stuck_builds)."""
        timeout = CONF.conductor.build_watchdog_timeout
        if not timeout:
            return
        message = (f"The build made no progress for {timeout} s (a service or the message "
                   f"broker failed during it); set to error by the build watchdog.")
        now = utcnow()
        while buried := stuck_builds.bury_stuck_builds(
                now - datetime.timedelta(seconds=timeout), message,
                queued_before=now - datetime.timedelta(seconds=QUEUED_TIMEOUTS * timeout)):
            for uuid in buried:
                LOG.warning("Instance %s: %s", uuid, message)
                placement_client.free_allocations(ctx, uuid)

    @ack_when_done
    def service_get_or_create(self, ctx: RequestContext, host: str, binary: str,
                              topic: str | None) -> Service:
        return services.service_get_or_create(host, binary, topic)

    @ack_when_done
    def service_get_or_create_many(self, ctx: RequestContext, hosts: list[str], binary: str,
                                   topic: str | None) -> list[Service]:
        return services.service_get_or_create_many(hosts, binary, topic)

    @ack_when_done
    def service_heartbeat(self, ctx: RequestContext, service_id: int | None = None,
                          service_ids: list[int] | None = None) -> list[int]:
        """One service's heartbeat (1.0: its missing record raises), or from 1.9 those
        of all the services of a process at once: the ids without a record come back."""
        if service_ids is not None:
            return services.service_heartbeat(service_ids)
        if services.service_heartbeat([service_id or 0]):
            raise exception.ServiceNotFound(service_id=service_id)
        return []

    @ack_when_done
    def compute_node_save(self, ctx: RequestContext, node: ComputeNode,
                          service_id: int | None = None) -> ComputeNode:
        return compute_nodes.compute_node_save(node, service_id)

    @ack_when_done
    def compute_node_save_many(self, ctx: RequestContext,
                               saves: list[tuple[ComputeNode, int | None]]) -> None:
        """Nothing comes back: the compute keeps the nodes it sent, and encoding hundreds
        of them again would only slow the call."""
        compute_nodes.compute_node_save_many([(node, service_id) for node, service_id in saves])

    @ack_when_done
    def instance_get(self, ctx: RequestContext, instance_uuid: str) -> Instance:
        return instances.instance_get(instance_uuid)

    @ack_when_done
    def instance_get_all_by_host(self, ctx: RequestContext, host: str) -> list[Instance]:
        return instances.instance_get_all_by_host(host)

    @ack_when_done
    def instance_get_all_by_hosts(self, ctx: RequestContext, hosts: list[str]
                                  ) -> dict[str, list[Instance]]:
        return instances.instance_get_all_by_hosts(hosts)

    @ack_when_done
    def instance_get_deleted(self, ctx: RequestContext, uuids: list[str]) -> list[Instance]:
        return instances.instance_get_deleted(uuids)

    @ack_when_done
    def instance_update(self, ctx: RequestContext, instance_uuid: str, values: dict[str, Any],
                        expected_task_state: list | None = None,
                        check_task_state: bool = True,
                        expected_host: str | None = None,
                        starts_event: str | None = None,
                        ends_event: str | None = None) -> Instance:
        """A redelivered update found made already answers with the instance: its
        events, committed with it, are recorded already too."""
        expected = expected_task_state if check_task_state else instances.ANY

        def events(unit: Unit) -> None:
            if starts_event:
                actions.add_event(unit, ctx, instance_uuid, starts_event, expected_host)
            if ends_event:
                actions.finish_event(unit, ctx, instance_uuid, ends_event)

        try:
            return instances.instance_update(
                instance_uuid, values, expected_task_state=expected,
                expected_host=instances.ANY if expected_host is None else expected_host,
                along=events if starts_event or ends_event else None,
                with_tags=notifier.enabled())  # what the compute's notifications show
        except exception.UnexpectedTaskStateError:
            if rpc.redelivered():  # made by the handling that died before replying?
                current = instances.instance_get(instance_uuid)
                if _states_set(current, values):
                    return current
            raise

    def instance_destroy(self, ctx: RequestContext, instance_uuid: str) -> Instance:
        return instances.instance_destroy(instance_uuid)

    @ack_when_done
    def instance_fault_create(self, ctx: RequestContext, instance_uuid: str, code: int,
                              message: str, details: str | None, host: str | None) -> None:
        actions.fault_create(instance_uuid, code, message, details, host)

    @ack_when_done
    def instance_info_cache_update(self, ctx: RequestContext, instance_uuid: str,
                                   network_info: list[VIF]) -> None:
        info_caches.update(instance_uuid, network_info_model.to_json(network_info))

    @ack_when_done
    def migration_get(self, ctx: RequestContext, migration_uuid: str) -> Migration:
        return migrations.migration_get(migration_uuid)

    def migration_update(self, ctx: RequestContext, migration_uuid: str,
                         values: dict[str, Any],
                         expected_status: list[str] | None = None) -> Migration:
        return migrations.migration_update(migration_uuid, values, expected_status)

    @ack_when_done
    def migration_get_in_progress_by_host(self, ctx: RequestContext, host: str
                                          ) -> list[Migration]:
        return migrations.migration_get_in_progress_by_host(host)

    @ack_when_done
    def migration_get_in_progress_by_hosts(self, ctx: RequestContext, hosts: list[str]
                                           ) -> dict[str, list[Migration]]:
        return migrations.migration_get_in_progress_by_hosts(hosts)

    @ack_when_done
    def migration_get_unconfirmed_by_dest_compute(self, ctx: RequestContext, window: int,
                                                  dest_compute: str) -> list[Migration]:
        return migrations.migration_get_unconfirmed_by_dest_compute(window, dest_compute)

    def instance_update_flavor(self, ctx: RequestContext, instance_uuid: str,
                               values: dict[str, Any], expected_task_state: list,
                               cur: Flavor, old: Flavor | None, new: Flavor | None
                               ) -> Instance:
        return migrations.instance_update_flavor(instance_uuid, values, expected_task_state,
                                                 cur, old, new)

    def action_start(self, ctx: RequestContext, instance_uuid: str, action: str) -> None:
        actions.action_start(ctx, instance_uuid, action)

    @ack_when_done
    def block_device_mapping_get_all_by_instance(self, ctx: RequestContext,
                                                 instance_uuid: str
                                                 ) -> list[BlockDeviceMapping]:
        return block_devices.bdm_get_all_by_instance(instance_uuid)

    @ack_when_done
    def block_device_mapping_update(self, ctx: RequestContext, bdm_uuid: str,
                                    values: dict[str, Any]) -> BlockDeviceMapping:
        return block_devices.bdm_update(bdm_uuid, values)

    def block_device_mapping_destroy(self, ctx: RequestContext, bdm_uuid: str) -> None:
        block_devices.bdm_destroy(bdm_uuid)

    @ack_when_done
    def action_event_start(self, ctx: RequestContext, instance_uuid: str, event: str,
                           host: str | None) -> None:
        if rpc.redelivered() and actions.event_open(ctx, instance_uuid, event):
            return  # started by the handling that died before replying
        actions.action_event_start(ctx, instance_uuid, event, host)

    @ack_when_done
    def action_event_finish(self, ctx: RequestContext, instance_uuid: str, event: str,
                            result: str, traceback: str | None = None) -> None:
        if rpc.redelivered() and not actions.event_open(ctx, instance_uuid, event):
            return  # finished by the handling that died before replying
        actions.action_event_finish(ctx, instance_uuid, event, result, traceback)

    @ack_when_done
    def instance_group_placed_before(self, ctx: RequestContext, group_uuid: str,
                                     instance_uuid: str) -> dict | None:
        return server_groups.group_placed_before(group_uuid, instance_uuid)
