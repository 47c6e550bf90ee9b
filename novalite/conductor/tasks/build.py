"""The build: schedule, then hand each instance to its host; reschedule onto alternates when
a host fails; bury the instance in ERROR with a fault when nothing is left. An instance never
stays in BUILD because of a failure here: a task that fails half-way rolls back by freeing
the placement claims of the instances it had not handed on and burying them."""

from __future__ import annotations

import dataclasses
import functools
import logging

from novalite import exception, rpc
from novalite.clients import placement as placement_client
from novalite.clients.placement import Claim
from novalite.compute import neutron, server_groups
from novalite.compute import rpcapi as compute_rpcapi
from novalite.conductor.tasks import build_resume
from novalite.conductor.tasks.base import TaskBase
from novalite.conf import CONF
from novalite.context import RequestContext
from novalite.db.api import actions, build_progress, info_caches, instances
from novalite.objects import states
from novalite.objects.claimant import Claimant, claimant
from novalite.objects.instance import Instance
from novalite.objects.request_spec import (
    FilterProperties,
    RequestSpec,
    SchedulerRetries,
    Selection,
)
from novalite.scheduler import rpcapi as scheduler_rpcapi
from novalite.timeutils import utcnow

LOG = logging.getLogger(__name__)

SCHEDULE_EVENT = "conductor_schedule_and_build_instances"
RESCHEDULE_EVENT = "conductor_build_instances"


class ScheduleAndBuildTask(TaskBase):
    """A new build: ask the schedulers for a host per instance (they claim in placement),
    record each host and cast the build to it."""

    def __init__(self, ctx: RequestContext, spec: RequestSpec, instance_uuids: list[str],
                 scheduler: scheduler_rpcapi.SchedulerAPI,
                 compute: compute_rpcapi.ComputeAPI) -> None:
        super().__init__(ctx)
        self.spec = spec
        self.instance_uuids = instance_uuids
        self.scheduler = scheduler
        self.compute = compute
        self.handed_on: set[str] = set()  # built elsewhere or buried: no rollback for them

    def _execute(self) -> None:
        to_schedule = self._resume()
        build_progress.taken(self.ctx, self.instance_uuids, to_schedule, SCHEDULE_EVENT)
        if not to_schedule:
            return
        server_groups.setup_instance_group(self.spec)  # the group as it is now, or refuse
        spec = self.spec
        if len(to_schedule) < len(self.instance_uuids):  # the others went on before
            spec = dataclasses.replace(spec, min_count=min(spec.min_count, len(to_schedule)))
        try:
            host_lists = self.scheduler.select_destinations(self.ctx, spec, to_schedule,
                                                            return_alternates=True)
        except exception.NoValidHost:
            # A twin of this message handling it right now may have claimed first.
            if not self._adopt(to_schedule):
                raise
            host_lists = []
        for host_list in host_lists:
            self._build(host_list[0], host_list[1:])
        for uuid in to_schedule:  # beyond what fit (min_count < count)
            if uuid not in self.handed_on:
                bury(self.ctx, uuid, exception.NoValidHost(
                    reason="There are not enough hosts available."), SCHEDULE_EVENT)
                self.handed_on.add(uuid)

    def _resume(self) -> list[str]:
        """Carry on the instances an earlier handling of this message took some way (see
        build_resume); the ones still to schedule."""
        found = build_resume.progress(self.instance_uuids)
        to_schedule = []
        for uuid in self.instance_uuids:
            step = build_resume.step(found.get(uuid))
            if step is build_resume.Step.SEND:
                build_resume.resend(self.ctx, self.compute, uuid, found[uuid], self.spec,
                                    FilterProperties(num_attempts=1))
            if step is build_resume.Step.SCHEDULE:
                to_schedule.append(uuid)
            else:
                self.handed_on.add(uuid)
        if rpc.redelivered():
            self._adopt(to_schedule)
        return [uuid for uuid in to_schedule if uuid not in self.handed_on]

    def _adopt(self, uuids: list[str]) -> bool:
        """Build where placement already holds a claim for them; whether any was."""
        adopted = [selection for uuid in uuids
                   if (selection := build_resume.adopt(self.ctx, uuid)) is not None]
        for selection in adopted:
            self._build(selection, [])
        return bool(adopted)

    def _build(self, selection: Selection, alternates: list[Selection]) -> None:
        build_on(self.ctx, self.compute, selection, alternates, self.spec,
                 FilterProperties(num_attempts=1), SCHEDULE_EVENT)
        self.handed_on.add(selection.instance_uuid)

    def rollback(self, exc: Exception) -> None:
        """A scheduler that failed or timed out may still have claimed, or claim later:
        bury every instance not handed on with the reason, then free its claims. In that
        order, a claim landing after the free finds the instance in ERROR and is given
        back by the scheduler (see novalite.scheduler.claims). One a twin of this
        message placed meanwhile (redelivered to another conductor while this one ran)
        is the twin's: left alone, with its claim."""
        for uuid in self.instance_uuids:
            if uuid not in self.handed_on and bury(self.ctx, uuid, exc, SCHEDULE_EVENT,
                                                   unplaced_only=True):
                placement_client.free_allocations(self.ctx, uuid)


class RescheduleTask(TaskBase):
    """A compute failed the build (and freed its own claim): move the claim to the next
    alternate that still has room and cast the build there, or bury the instance."""

    def __init__(self, ctx: RequestContext, instance_uuid: str, spec: RequestSpec,
                 props: FilterProperties, host_list: list[Selection],
                 compute: compute_rpcapi.ComputeAPI) -> None:
        super().__init__(ctx)
        self.instance_uuid = instance_uuid
        self.spec = spec
        self.props = props
        self.host_list = host_list
        self.compute = compute

    def _execute(self) -> None:
        uuid, props = self.instance_uuid, self.props
        found = build_resume.progress([uuid]).get(uuid)
        step = build_resume.step(found, props.hosts[-1][0] if props.hosts else "")
        if step is build_resume.Step.NOTHING:
            return
        actions.action_event_start(self.ctx, uuid, RESCHEDULE_EVENT)
        props.num_attempts += 1
        # The hosts tried so far travel in the spec, as Nova's legacy retry info did, so a
        # scheduler asked about this build again (RetryFilter) skips them.
        self.spec.retry = SchedulerRetries(num_attempts=props.num_attempts,
                                           hosts=[list(tried) for tried in props.hosts])
        if step is build_resume.Step.SEND:
            assert found is not None, "a step to send is for an instance found"
            build_resume.resend(self.ctx, self.compute, uuid, found, self.spec, props)
            return
        if props.num_attempts > CONF.scheduler.max_attempts:
            raise exception.MaxRetriesExceeded(reason=(
                f"Exceeded max scheduling attempts {CONF.scheduler.max_attempts} for "
                f"instance {uuid}. Last exception: {props.last_error}"))
        selection = build_resume.adopt(self.ctx, uuid) if rpc.redelivered() else None
        host_list = self.host_list
        while selection is None and host_list:
            if _claim_alternate(self.ctx, self.spec, host_list[0]):
                selection = host_list[0]
            host_list = host_list[1:]
        # Refused everywhere: a twin of this message handling it now may have claimed.
        selection = selection or build_resume.adopt(self.ctx, uuid)
        if selection is None:
            raise exception.MaxRetriesExceeded(reason=(
                f"Exhausted all hosts available for retrying build failures for "
                f"instance {uuid}."))
        build_on(self.ctx, self.compute, selection, host_list, self.spec, props,
                 RESCHEDULE_EVENT)

    def rollback(self, exc: Exception) -> None:
        placement_client.free_allocations(self.ctx, self.instance_uuid)
        bury(self.ctx, self.instance_uuid, exc, RESCHEDULE_EVENT)


def _claim_alternate(ctx: RequestContext, spec: RequestSpec, selection: Selection) -> bool:
    """Move the build's claim to an alternate (the failed host freed its own); an alternate
    whose capacity went meanwhile is skipped."""
    if selection.allocation_request is None:
        return True
    claimed = placement_client.report_client().claim_resources(
        ctx, selection.instance_uuid, selection.allocation_request,
        spec.project_id or "", spec.user_id or "") is not Claim.REFUSED
    if not claimed:
        LOG.info("Alternate %s for %s has no room left", selection.service_host,
                 selection.instance_uuid)
    return claimed


def build_on(ctx: RequestContext, compute: compute_rpcapi.ComputeAPI, selection: Selection,
             alternates: list[Selection], spec: RequestSpec, props: FilterProperties,
             event: str) -> None:
    """Record the chosen host and cast the build to it; an instance that stopped waiting
    meanwhile does not get it (see _give_up)."""
    uuid = selection.instance_uuid
    try:
        instance = instances.instance_update(
            uuid, {"host": selection.service_host, "node": selection.nodename,
                   "launched_on": selection.service_host, "scheduled_at": utcnow(),
                   "availability_zone": selection.availability_zone},
            expected_task_state=[states.SCHEDULING],
            along=functools.partial(actions.finish_event, ctx=ctx, instance_uuid=uuid,
                                    event=event, details=selection.decision))
    except (exception.InstanceNotFound, exception.UnexpectedTaskStateError):
        _give_up(ctx, uuid)
        return
    props.hosts.append([selection.service_host, selection.nodename])
    compute.build_and_run_instance(ctx, selection.service_host, instance, spec, props,
                                   alternates, selection.nodename)


def _give_up(ctx: RequestContext, uuid: str) -> None:
    """The build stopped waiting for the host chosen for it: deleted or ended meanwhile,
    its claim given back; or placed by another handling of its request, whose claim is
    the one this handling found (see novalite.objects.claimant) and is kept."""
    if claimant(build_progress.build_progress([uuid]).get(uuid)) is not Claimant.GONE:
        LOG.info("Instance %s was placed by another handling of its build", uuid)
        return
    LOG.info("Instance %s was deleted or ended while it was being scheduled", uuid)
    placement_client.free_allocations(ctx, uuid)


def bury(ctx: RequestContext, instance_uuid: str, exc: Exception, event: str,
         unplaced_only: bool = False) -> bool:
    """Put the instance in ERROR with a fault that says why, both in one transaction, so
    nobody ever sees ERROR without its reason. With `unplaced_only`, only if it still
    awaits a host. Whether it is in ERROR now (or deleted): False when it was placed."""
    LOG.warning("Setting instance %s to ERROR: %s", instance_uuid, exc)
    code = getattr(exc, "code", 500)
    details = exception.format_tb(exc)
    fault = functools.partial(actions.add_fault, instance_uuid=instance_uuid,
                              code=code if isinstance(code, int) else 500,
                              message=exception.fault_message(exc), details=details)
    guards = ({"expected_task_state": [states.SCHEDULING], "expected_host": None}
              if unplaced_only else {})
    try:
        instance = instances.instance_update(instance_uuid, {"vm_state": states.ERROR,
                                                             "task_state": None},
                                             along=fault, **guards)
    except exception.InstanceNotFound:
        return True  # deleted meanwhile: nothing to report on
    except exception.UnexpectedTaskStateError:
        LOG.info("Instance %s was placed meanwhile; not setting it to ERROR", instance_uuid)
        return False
    actions.action_event_finish(ctx, instance_uuid, event, "Error", traceback=details)
    if instance.network_info:
        _release_ports(ctx, instance)
    return True


def _release_ports(ctx: RequestContext, instance: Instance) -> None:
    """A build that never got a host keeps no address: the API made its ports before the
    build (Nova's compute makes them on the host, so Nova's server has none), so the
    ones made for it go and the user's are released, as its delete would. If the network
    service cannot be reached, the server's delete releases them later."""
    try:
        neutron.API().deallocate_for_instance(ctx, instance.uuid, instance.preserved_ports())
    except Exception:  # noqa: BLE001 (best effort: the ERROR and its fault stand)
        LOG.warning("Could not release the ports of %s; its delete will", instance.uuid,
                    exc_info=True)
        return
    info_caches.update(instance.uuid, [])
