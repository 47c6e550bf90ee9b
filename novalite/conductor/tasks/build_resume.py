"""Resuming a build from where an earlier handling of its message left it.

The build messages (`schedule_and_build_instances`, `build_instances`) are acknowledged
only once handled, so a conductor killed half-way leaves them to be delivered again, to
its successor or to another conductor; a publish retried after a lost connection can
duplicate them too. Each step of a build leaves a trace on the instance row, read here
before anything is redone:

- gone, deleting, not building, or its task state past scheduling (a delete, an
  ending, or its host took the build): nothing to do.
- a host recorded, still scheduling (claimed there and recorded, the build perhaps
  sent): send the build there again; the compute builds an instance once.
- no host, but one was recorded before (`scheduled_at`, or for a reschedule a
  `launched_on` other than the host that asked for it): a host failed the build and
  asked for a reschedule, whose own message carries it on: nothing to do.
- no host yet: at most a claim in placement, made by a handling that died before
  recording it: adopt that claim, or schedule.
"""

from __future__ import annotations

import enum
import logging

from novalite import availability_zones, rpc
from novalite.clients import placement as placement_client
from novalite.compute import rpcapi as compute_rpcapi
from novalite.context import RequestContext
from novalite.db.api import build_progress, compute_nodes, instances
from novalite.db.api.build_progress import BuildProgress
from novalite.exception import ComputeHostNotFound, InstanceNotFound
from novalite.objects import states
from novalite.objects.request_spec import FilterProperties, RequestSpec, Selection

LOG = logging.getLogger(__name__)


class Step(enum.Enum):
    SCHEDULE = "schedule"  # choose a host (or adopt the claim an earlier handling made)
    SEND = "send"  # a host is recorded: send the build there
    NOTHING = "nothing"  # done, ended, or another message's to carry on


def progress(uuids: list[str]) -> dict[str, BuildProgress]:
    """Where the builds stand; a redelivered message also tells the watchdog they move."""
    return (build_progress.take_over(uuids) if rpc.redelivered()
            else build_progress.build_progress(uuids))


def step(found: BuildProgress | None, failed_host: str | None = None) -> Step:
    """The step to take for a new build (`failed_host` None) or for the reschedule asked
    for by `failed_host`."""
    if found is None or found.vm_state != states.BUILDING or \
            found.task_state != states.SCHEDULING:
        return Step.NOTHING
    if found.host:
        return Step.SEND
    if failed_host is None:
        return Step.NOTHING if found.scheduled_at else Step.SCHEDULE
    return Step.SCHEDULE if found.launched_on == failed_host else Step.NOTHING


def resend(ctx: RequestContext, compute: compute_rpcapi.ComputeAPI, uuid: str,
           found: BuildProgress, spec: RequestSpec, props: FilterProperties) -> None:
    """Send the build to the host recorded for it: whether an earlier handling sent it
    before it died cannot be known, and the compute builds an instance only once,
    however often it is asked to (ComputeManager._build)."""
    assert found.host is not None and found.node is not None, "only a recorded host"
    try:
        instance = instances.instance_get(uuid)
    except InstanceNotFound:
        return  # deleted meanwhile: its delete freed its claim
    LOG.info("Instance %s: sending its build to %s again (its message came back)", uuid,
             found.host)
    props.hosts.append([found.host, found.node])
    compute.build_and_run_instance(ctx, found.host, instance, spec, props, [], found.node)


def adopt(ctx: RequestContext, uuid: str) -> Selection | None:
    """The host of the claim placement holds for the instance that no host was recorded
    for: made by an earlier handling of the message that died before recording it (or
    by a twin handling it right now). Building there keeps the one claim, where a new
    one would be refused (a consumer holding allocations is not claimed for again) or
    counted twice. None when it holds nothing."""
    held = placement_client.report_client().get_allocations_for_consumer(ctx, uuid)
    for provider in held.get("allocations") or {}:
        try:
            node = compute_nodes.compute_node_get(provider)
        except ComputeHostNotFound:
            continue  # a provider under or beside the node (a device, shared storage)
        LOG.info("Instance %s: adopting the claim made on %s before its message came "
                 "back", uuid, node.host)
        return Selection(service_host=node.host, nodename=node.hypervisor_hostname,
                         compute_node_uuid=node.uuid, instance_uuid=uuid,
                         availability_zone=availability_zones.compute_host_zone(node.host),
                         decision="The claim an earlier handling of this build made.")
    return None
