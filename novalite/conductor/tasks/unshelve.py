"""Unshelving an offloaded server (Nova's conductor unshelve_instance): the scheduler is
asked again with the server's request spec, as the unshelve narrows it (a zone, a host),
claims the chosen host, and that host's compute spawns the server from its shelve image.
A server no host takes stays SHELVED_OFFLOADED, with the scheduler's reason as its fault.
"""

from __future__ import annotations

from novalite import exception
from novalite.compute import rpcapi as compute_rpcapi
from novalite.compute import server_groups
from novalite.conductor.tasks import move_resume
from novalite.conductor.tasks.base import TaskBase
from novalite.context import RequestContext
from novalite.db.api import actions, instances, request_specs
from novalite.objects import states
from novalite.objects.image import ImageMeta
from novalite.objects.request_spec import Destination, UnshelvePlacement
from novalite.scheduler import rpcapi as scheduler_rpcapi

EVENT = "conductor_unshelve_instance"


class UnshelveTask(TaskBase):
    def __init__(self, ctx: RequestContext, instance_uuid: str, image: ImageMeta,
                 placement: UnshelvePlacement, scheduler: scheduler_rpcapi.SchedulerAPI,
                 compute: compute_rpcapi.ComputeAPI) -> None:
        super().__init__(ctx)
        self.instance_uuid = instance_uuid
        self.image = image
        self.placement = placement
        self.scheduler = scheduler
        self.compute = compute

    def _execute(self) -> None:
        begun = move_resume.begin(self.ctx, self.instance_uuid, EVENT, states.UNSHELVING)
        if begun is None:
            return
        instance, resumed = begun
        if resumed:
            move_resume.forget_claim(self.ctx, instance)
        spec = request_specs.request_spec_get(instance.uuid)
        if self.placement.availability_zone or self.placement.unpin:
            spec.availability_zone = self.placement.availability_zone
            request_specs.request_spec_save(spec)  # the zone the server is pinned to now
        spec.requested_destination = (Destination(host=self.placement.host)
                                      if self.placement.host else None)
        spec.image = self.image
        server_groups.setup_instance_group(spec)
        selection = self.scheduler.select_destinations(self.ctx, spec, [instance.uuid],
                                                       return_alternates=False)[0][0]
        if self.placement.availability_zone or self.placement.unpin:
            instances.instance_update(instance.uuid, {
                "availability_zone": self.placement.availability_zone})
        actions.action_event_finish(self.ctx, instance.uuid, EVENT)
        self.compute.unshelve_instance(self.ctx, selection.service_host, instance,
                                       self.image, selection.nodename)

    def rollback(self, exc: Exception) -> None:
        """Still offloaded, idle, with the reason."""
        actions.fault_create(self.instance_uuid, 500, exception.fault_message(exc))
        instances.instance_update(self.instance_uuid, {"task_state": None})
        actions.action_event_finish(self.ctx, self.instance_uuid, EVENT, "Error",
                                    exception.format_tb(exc))
