"""A build message handled again (redelivered after a conductor died with it, or sent
twice) resumes from what the instance row says was done: nothing is scheduled, claimed
or built twice, and nothing taken is dropped."""

import datetime

import pytest

from novalite import rpc
from novalite.clients.placement import Claim
from novalite.conductor.tasks import build, build_resume
from novalite.context import get_admin_context
from novalite.db.api import build_progress, compute_nodes, instances
from novalite.db.session import writer
from novalite.objects import states
from novalite.objects.request_spec import FilterProperties, Selection
from novalite.timeutils import utcnow
from tests import builders

CTX = get_admin_context()
NODE = builders.node("host2")


class Scheduler:
    def __init__(self):
        self.asked = []

    def select_destinations(self, ctx, spec, uuids, return_alternates):
        self.asked.append(list(uuids))
        return [[Selection(service_host="host1", nodename="host1", compute_node_uuid="n1",
                           instance_uuid=uuid)] for uuid in uuids]


class Compute:
    def __init__(self):
        self.builds = []

    def build_and_run_instance(self, ctx, host, instance, spec, props, alternates, node):
        self.builds.append((instance.uuid, host, node))


class Placement:
    """What placement holds per consumer; claims refused for a consumer holding some."""

    def __init__(self):
        self.held = {}

    def get_allocations_for_consumer(self, ctx, uuid):
        return {"allocations": self.held[uuid]} if uuid in self.held else {}

    def claim_resources(self, ctx, uuid, allocation_request, project_id, user_id):
        if uuid in self.held:
            return Claim.REFUSED
        self.held[uuid] = allocation_request
        return Claim.MADE


@pytest.fixture
def cloud(db, monkeypatch):
    placement = Placement()
    monkeypatch.setattr(build_resume.placement_client, "report_client", lambda: placement)
    monkeypatch.setattr(build.placement_client, "report_client", lambda: placement)
    monkeypatch.setattr(build.placement_client, "free_allocations",
                        lambda ctx, uuid: placement.held.pop(uuid, None))
    monkeypatch.setattr(build.server_groups, "setup_instance_group", lambda spec: None)
    compute_nodes.compute_node_save(NODE)
    return placement


@pytest.fixture
def redelivered(monkeypatch):
    monkeypatch.setattr(rpc, "redelivered", lambda: True)


def instance(**values):
    inst = builders.instance()
    instances.instance_create({"uuid": inst.uuid, "display_name": "vm", "project_id": "p1",
                               "user_id": "u1", "flavor": builders.flavor(),
                               "vm_state": states.BUILDING,
                               "task_state": states.SCHEDULING, **values})
    return inst.uuid


def schedule(uuid):
    scheduler, compute = Scheduler(), Compute()
    build.ScheduleAndBuildTask(CTX, builders.request_spec(instance_uuid=uuid), [uuid],
                               scheduler, compute).execute()
    return scheduler.asked, compute.builds


def test_a_new_build_is_scheduled_and_sent(cloud):
    uuid = instance()
    assert schedule(uuid) == ([[uuid]], [(uuid, "host1", "host1")])
    assert instances.instance_get(uuid).host == "host1"


@pytest.mark.parametrize("values", [
    {"task_state": None, "host": "host1", "node": "host1"},  # its host took it
    {"vm_state": states.ACTIVE, "task_state": None, "host": "host1", "node": "host1"},
    {"task_state": states.DELETING},
    {"scheduled_at": utcnow(), "launched_on": "host1"},  # given back for a reschedule
], ids=["building", "active", "deleting", "rescheduling"])
def test_a_build_past_scheduling_is_left_alone(cloud, redelivered, values):
    assert schedule(instance(**values)) == ([], [])


def test_a_deleted_instance_is_dropped(cloud, redelivered):
    uuid = instance()
    instances.instance_destroy(uuid)
    assert schedule(uuid) == ([], [])


def test_a_build_recorded_on_its_host_is_sent_there_again_not_rescheduled(
        cloud, redelivered):
    """The conductor died between recording the host and sending, or just after: which,
    nobody knows, and the compute takes a build only once."""
    uuid = instance(host="host2", node="host2", scheduled_at=utcnow(), launched_on="host2")
    assert schedule(uuid) == ([], [(uuid, "host2", "host2")])


def test_a_claim_made_before_the_conductor_died_is_adopted_not_made_again(
        cloud, redelivered):
    uuid = instance()
    cloud.held[uuid] = {NODE.uuid: {"resources": {"MEMORY_MB": 512}}}
    assert schedule(uuid) == ([], [(uuid, "host2", "host2")])
    assert instances.instance_get(uuid).host == "host2"
    assert list(cloud.held) == [uuid]  # the one claim, kept


def test_a_twin_that_claimed_first_is_followed_not_buried(cloud):
    """Two handlings at once (a message redelivered while its first taker still runs):
    the second's claims are refused (the consumer holds one), and it builds where the
    first claimed instead of burying the instance with NoValidHost."""
    uuid = instance()
    cloud.held[uuid] = {NODE.uuid: {"resources": {"MEMORY_MB": 512}}}

    class Refusing(Scheduler):
        def select_destinations(self, ctx, spec, uuids, return_alternates):
            raise build.exception.NoValidHost(reason="refused")
    compute = Compute()
    build.ScheduleAndBuildTask(CTX, builders.request_spec(instance_uuid=uuid), [uuid],
                               Refusing(), compute).execute()
    assert compute.builds == [(uuid, "host2", "host2")]
    assert instances.instance_get(uuid).vm_state == states.BUILDING


@pytest.mark.parametrize(("values", "kept"), [
    ({"task_state": states.SPAWNING, "host": "host1", "node": "host1"}, True),
    ({"vm_state": states.ACTIVE, "task_state": None, "host": "host1", "node": "host1"}, True),
    ({"vm_state": states.ERROR, "task_state": None}, False),
    ({"task_state": states.DELETING}, False),
], ids=["spawning", "active", "ended", "deleting"])
def test_a_host_chosen_too_late_keeps_the_claim_only_of_a_live_placed_build(cloud, values,
                                                                            kept):
    """Handled twice at once, the other handling placed the instance while this one's
    scheduler found that handling's claim and chose its host again: the claim is the
    placed build's and stays. One for a build ended or deleted meanwhile is given back."""
    uuid = instance()
    cloud.held[uuid] = {NODE.uuid: {}}

    class Overtaken(Scheduler):
        def select_destinations(self, ctx, spec, uuids, return_alternates):
            instances.instance_update(uuid, values)
            return super().select_destinations(ctx, spec, uuids, return_alternates)
    compute = Compute()
    build.ScheduleAndBuildTask(CTX, builders.request_spec(instance_uuid=uuid), [uuid],
                               Overtaken(), compute).execute()
    assert compute.builds == []
    assert (uuid in cloud.held) is kept


def test_a_redelivered_build_tells_the_watchdog_it_moves(cloud, redelivered):
    uuid = instance()
    with writer() as s:
        s.execute(instances.models.Instance.__table__.update().values(
            updated_at=utcnow() - datetime.timedelta(hours=1)))
    found = build_resume.progress([uuid])
    assert found[uuid].task_state == states.SCHEDULING
    assert instances.instance_get(uuid).updated_at > utcnow() - datetime.timedelta(minutes=1)
    assert build_progress.build_progress([uuid]) == found


def reschedule(uuid, failed="host1"):
    compute = Compute()
    alternate = Selection(service_host="host3", nodename="host3", compute_node_uuid="n3",
                          instance_uuid=uuid, allocation_request={"allocations": {}})
    build.RescheduleTask(CTX, uuid, builders.request_spec(instance_uuid=uuid),
                         FilterProperties(hosts=[[failed, failed]]), [alternate],
                         compute).execute()
    return compute.builds


def test_a_reschedule_claims_an_alternate_and_sends_the_build(cloud):
    uuid = instance(scheduled_at=utcnow(), launched_on="host1")
    assert reschedule(uuid) == [(uuid, "host3", "host3")]
    assert uuid in cloud.held


def test_a_redelivered_reschedule_adopts_the_alternate_it_claimed(cloud, redelivered):
    uuid = instance(scheduled_at=utcnow(), launched_on="host1")
    cloud.held[uuid] = {NODE.uuid: {"resources": {"MEMORY_MB": 512}}}
    assert reschedule(uuid) == [(uuid, "host2", "host2")]


def test_a_reschedule_a_later_attempt_overtook_is_left_to_it(cloud, redelivered):
    """Recorded on host3 since, which failed too and asked for its own reschedule."""
    uuid = instance(scheduled_at=utcnow(), launched_on="host3")
    assert reschedule(uuid, failed="host1") == []
    assert cloud.held == {}


@pytest.mark.parametrize(("values", "failed", "expected"), [
    ({}, None, build_resume.Step.SCHEDULE),
    ({"host": "h"}, None, build_resume.Step.SEND),
    ({"host": "h"}, "x", build_resume.Step.SEND),
    ({"scheduled_at": utcnow()}, None, build_resume.Step.NOTHING),
    ({"launched_on": "x"}, "x", build_resume.Step.SCHEDULE),
    ({"launched_on": "y"}, "x", build_resume.Step.NOTHING),
    ({"task_state": None}, None, build_resume.Step.NOTHING),
    ({"vm_state": states.ERROR, "task_state": None}, "x", build_resume.Step.NOTHING),
])
def test_the_step_each_trace_calls_for(values, failed, expected):
    fields = {"vm_state": states.BUILDING, "task_state": states.SCHEDULING, "host": None,
              "node": None, "scheduled_at": None, "launched_on": None, **values}
    assert build_resume.step(build_progress.BuildProgress(**fields), failed) is expected
    assert build_resume.step(None, failed) is build_resume.Step.NOTHING


def test_a_failed_handling_leaves_alone_what_a_twin_placed_meanwhile(cloud):
    """Its scheduler call timed out while the message, redelivered after a lost
    connection, was placed by another handling: that one's build and claim stand."""
    placed, waiting = instance(), instance()
    cloud.held[placed] = cloud.held[waiting] = {NODE.uuid: {}}
    instances.instance_update(placed, {"host": "host2", "node": "host2"})
    task = build.ScheduleAndBuildTask(CTX, builders.request_spec(), [placed, waiting],
                                      Scheduler(), Compute())
    task.rollback(rpc.MessagingTimeout("select_destinations timed out"))
    assert instances.instance_get(placed).vm_state == states.BUILDING
    assert instances.instance_get(waiting).vm_state == states.ERROR
    assert list(cloud.held) == [placed]
