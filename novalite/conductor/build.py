"""Build orchestration: schedule, then hand each instance to its host; reschedule onto
alternates when a host fails; bury the instance in ERROR with a fault when nothing is left.
An instance never stays in BUILD because of a failure here."""

from __future__ import annotations

import logging
import traceback

from novalite import exception
from novalite.compute import rpcapi as compute_rpcapi
from novalite.compute import server_groups, states
from novalite.conf import CONF
from novalite.context import RequestContext
from novalite.db.api import actions, instances
from novalite.db.models import utcnow
from novalite.objects.request_spec import FilterProperties, RequestSpec, Selection
from novalite.scheduler import rpcapi as scheduler_rpcapi
from novalite.scheduler.client import report

LOG = logging.getLogger(__name__)

SCHEDULE_EVENT = "conductor_schedule_and_build_instances"


class BuildTasks:
    def __init__(self) -> None:
        self.scheduler = scheduler_rpcapi.SchedulerAPI()
        self.compute = compute_rpcapi.ComputeAPI()

    def schedule_and_build(self, ctx: RequestContext, spec: RequestSpec,
                           instance_uuids: list[str]) -> None:
        for uuid in instance_uuids:
            actions.action_event_start(ctx, uuid, SCHEDULE_EVENT)
        try:
            server_groups.setup_instance_group(spec)  # the group as it is now, or refuse
            host_lists = self.scheduler.select_destinations(ctx, spec, instance_uuids,
                                                            return_alternates=True)
        except Exception as exc:
            for uuid in instance_uuids:
                self.bury(ctx, uuid, exc, SCHEDULE_EVENT)
            return
        placed = {hl[0].instance_uuid for hl in host_lists}
        for host_list in host_lists:
            props = FilterProperties(num_attempts=1)
            self._build_on(ctx, host_list[0], host_list[1:], spec, props, SCHEDULE_EVENT)
        for uuid in instance_uuids:  # beyond what fit (min_count < count)
            if uuid not in placed:
                self.bury(ctx, uuid, exception.NoValidHost(
                    reason="There are not enough hosts available."), SCHEDULE_EVENT)

    def reschedule(self, ctx: RequestContext, instance_uuid: str, spec: RequestSpec,
                   props: FilterProperties, host_list: list[Selection]) -> None:
        event = "conductor_build_instances"
        actions.action_event_start(ctx, instance_uuid, event)
        props.num_attempts += 1
        # The hosts tried so far travel in the spec, as Nova's legacy retry info did, so a
        # scheduler asked about this build again (RetryFilter) skips them.
        spec.retry = {"num_attempts": props.num_attempts,
                      "hosts": [list(tried) for tried in props.hosts]}
        if props.num_attempts > CONF.scheduler.max_attempts:
            reason = (f"Exceeded max scheduling attempts {CONF.scheduler.max_attempts} for "
                      f"instance {instance_uuid}. Last exception: {props.last_error}")
            self.bury(ctx, instance_uuid, exception.MaxRetriesExceeded(reason=reason), event)
            return
        while host_list and not self._claim_alternate(ctx, spec, host_list[0]):
            host_list = host_list[1:]
        if not host_list:
            reason = (f"Exhausted all hosts available for retrying build failures for "
                      f"instance {instance_uuid}.")
            self.bury(ctx, instance_uuid, exception.MaxRetriesExceeded(reason=reason), event)
            return
        self._build_on(ctx, host_list[0], host_list[1:], spec, props, event)

    @staticmethod
    def _claim_alternate(ctx: RequestContext, spec: RequestSpec,
                         selection: Selection) -> bool:
        """Move the build's claim to an alternate (the failed host freed its own); an
        alternate whose capacity went meanwhile is skipped."""
        if selection.allocation_request is None:
            return True
        claimed = report.report_client().claim_resources(
            ctx, selection.instance_uuid, selection.allocation_request,
            spec.project_id or "", spec.user_id or "")
        if not claimed:
            LOG.info("Alternate %s for %s has no room left", selection.service_host,
                     selection.instance_uuid)
        return claimed

    def _build_on(self, ctx: RequestContext, selection: Selection, alternates: list[Selection],
                  spec: RequestSpec, props: FilterProperties, event: str) -> None:
        uuid = selection.instance_uuid
        try:
            instance = instances.instance_update(
                uuid, {"host": selection.service_host, "node": selection.nodename,
                       "launched_on": selection.service_host, "scheduled_at": utcnow(),
                       "availability_zone": selection.availability_zone},
                expected_task_state=[states.SCHEDULING])
        except (exception.InstanceNotFound, exception.UnexpectedTaskStateError):
            LOG.info("Instance %s was deleted while it was being scheduled", uuid)
            report.free_allocations(ctx, uuid)
            return
        actions.action_event_finish(ctx, uuid, event, "Success", details=selection.decision)
        props.hosts.append([selection.service_host, selection.nodename])
        self.compute.build_and_run_instance(ctx, selection.service_host, instance, spec,
                                            props, alternates, selection.nodename)

    def bury(self, ctx: RequestContext, instance_uuid: str, exc: Exception, event: str) -> None:
        """Put the instance in ERROR with a fault that says why. The fault is written
        first, so nobody ever sees ERROR without its reason."""
        LOG.warning("Setting instance %s to ERROR: %s", instance_uuid, exc)
        message = exc.format_message() if isinstance(exc, exception.NovaliteException) \
            else str(exc)
        code = getattr(exc, "code", 500)
        details = "".join(traceback.format_exception(exc))
        actions.fault_create(instance_uuid, code if isinstance(code, int) else 500, message,
                             details)
        try:
            instances.instance_update(instance_uuid, {"vm_state": states.ERROR,
                                                      "task_state": None})
        except exception.InstanceNotFound:
            return  # deleted meanwhile: nothing to report on
        actions.action_event_finish(ctx, instance_uuid, event, "Error", traceback=details)
