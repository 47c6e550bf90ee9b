"""The resource tracker's claims, with a recording stand-in for the conductor."""

import uuid

import pytest

from novalite import context, exception
from novalite.compute import resource_tracker
from novalite.compute.resource_tracker import ResourceTracker
from novalite.objects.migration import Migration
from novalite.virt.fake import FakeDriver
from tests import builders


class RecordingConductor:
    def __init__(self, placed=(), migrations=()):
        self.placed = list(placed)
        self.migrations = list(migrations)
        self.saved = []

    def instance_get_all_by_host(self, ctx, host):
        return self.placed

    def migration_get_in_progress_by_host(self, ctx, host):
        return self.migrations

    def compute_node_save(self, ctx, node, service_id=None):
        self.saved.append((node.vcpus_used, node.memory_mb_used, node.running_vms))
        return node


class RecordingPlacement:
    """Stands in for the placement client: what the tracker reported, per provider."""

    def __init__(self):
        self.providers = {}
        self.probably_new = []

    def update_provider(self, ctx, uuid, name, inventory, traits, probably_new=False):
        self.providers[uuid] = (name, inventory, traits)
        self.probably_new.append(probably_new)
        return True


@pytest.fixture
def tracker(conf):
    conf.set_override("memory_mb", 4096, group="fake_driver")
    conf.set_override("vcpus", 2, group="fake_driver")
    driver = FakeDriver()
    driver.init_host("host1")
    rt = ResourceTracker("host1", driver, RecordingConductor(), RecordingPlacement())
    rt.update_available_resource(context.get_admin_context())
    return rt


def test_claims_count_against_capacity_with_reserved_memory(tracker):
    ctx = context.get_admin_context()
    big = builders.flavor(memory_mb=1792)
    tracker.instance_claim(ctx, builders.instance(flavor=big), "host1")
    tracker.instance_claim(ctx, builders.instance(flavor=big), "host1")
    with pytest.raises(exception.ComputeResourcesUnavailable, match="memory_mb"):
        tracker.instance_claim(ctx, builders.instance(flavor=big), "host1")  # 512 reserved
    assert tracker.conductor.saved[-1] == (2, 3584, 2)


def test_cpu_allocation_ratio_allows_overcommit(tracker):
    ctx = context.get_admin_context()
    for _ in range(8):  # 2 pCPUs x 4.0
        tracker.instance_claim(ctx, builders.instance(flavor=builders.flavor(memory_mb=1)),
                               "host1")
    with pytest.raises(exception.ComputeResourcesUnavailable, match="vcpus"):
        tracker.instance_claim(ctx, builders.instance(flavor=builders.flavor(memory_mb=1)),
                               "host1")


def test_release_happens_exactly_once(tracker):
    ctx = context.get_admin_context()
    inst = builders.instance()
    tracker.instance_claim(ctx, inst, "host1")
    tracker.release(ctx, inst.uuid)
    reports = len(tracker.conductor.saved)
    tracker.release(ctx, inst.uuid)
    assert len(tracker.conductor.saved) == reports
    assert tracker.conductor.saved[-1] == (0, 0, 0)


def test_claiming_twice_for_one_instance_does_not_double_count(tracker):
    ctx = context.get_admin_context()
    inst = builders.instance()
    tracker.instance_claim(ctx, inst, "host1")
    tracker.instance_claim(ctx, inst, "host1")
    assert tracker.conductor.saved[-1] == (1, 512, 1)


def test_usage_is_rebuilt_from_the_instances_placed_here(tracker):
    tracker.conductor.placed = [builders.instance(host="host1", node="host1")] * 1
    tracker.update_available_resource(context.get_admin_context())
    assert tracker.conductor.saved[-1] == (1, 512, 1)


def test_unknown_node_is_refused(tracker):
    with pytest.raises(exception.ComputeResourcesUnavailable, match="not managed"):
        tracker.instance_claim(context.get_admin_context(), builders.instance(), "elsewhere")


def test_the_node_is_reported_to_placement_with_ratios_reserved_and_traits(tracker):
    [(name, inventory, traits)] = tracker.reportclient.providers.values()
    assert name == "host1"
    assert inventory["VCPU"] == {"total": 2, "reserved": 0, "min_unit": 1, "max_unit": 2,
                                 "step_size": 1, "allocation_ratio": 4.0}
    assert inventory["MEMORY_MB"]["total"] == 4096
    assert inventory["MEMORY_MB"]["reserved"] == 512
    assert {"COMPUTE_IMAGE_TYPE_QCOW2", "COMPUTE_IMAGE_TYPE_RAW"} <= traits


def test_only_a_new_hosts_first_report_creates_providers_without_a_lookup(tracker):
    ctx = context.get_admin_context()
    tracker.new_host = True
    tracker.update_available_resource(ctx)
    tracker.update_available_resource(ctx)
    assert tracker.reportclient.probably_new == [False, True, False]  # the first: fixture's


def _move(instance, source, dest, status="finished"):
    return Migration(uuid=str(uuid.uuid4()), instance_uuid=instance.uuid, status=status,
                     source_compute=source, source_node=source, dest_compute=dest,
                     dest_node=dest, old_flavor=builders.flavor(id=1, memory_mb=512),
                     new_flavor=builders.flavor(id=2, flavorid="2", memory_mb=1024))


def test_a_move_away_keeps_its_old_flavor_on_the_source(tracker):
    moved = builders.instance(host="host2", node="host2")
    tracker.conductor.migrations = [_move(moved, "host1", "host2")]
    tracker.update_available_resource(context.get_admin_context())
    assert tracker.conductor.saved[-1] == (1, 512, 1)
    assert tracker.instance_uuids() == []  # a migration is no instance of the host


def test_a_move_here_holds_its_new_flavor_until_it_lands(tracker):
    coming = builders.instance(host="host2", node="host2")
    tracker.conductor.migrations = [_move(coming, "host2", "host1", "pre-migrating")]
    tracker.update_available_resource(context.get_admin_context())
    assert tracker.conductor.saved[-1] == (1, 1024, 1)


def test_a_resize_on_the_same_host_holds_both_flavors_until_confirmed(tracker):
    resized = builders.instance(host="host1", node="host1",
                                flavor=builders.flavor(id=2, flavorid="2", memory_mb=1024))
    migration = _move(resized, "host1", "host1")
    tracker.conductor.placed, tracker.conductor.migrations = [resized], [migration]
    tracker.update_available_resource(context.get_admin_context())
    assert tracker.conductor.saved[-1] == (2, 1536, 2)
    migration.status = "confirmed"
    tracker.update_available_resource(context.get_admin_context())
    assert tracker.conductor.saved[-1] == (1, 1024, 1)


def test_a_periodic_run_that_changed_nothing_writes_nothing(tracker):
    ctx = context.get_admin_context()
    assert len(tracker.conductor.saved) == 1  # the first run's report
    tracker.update_available_resource(ctx)
    assert len(tracker.conductor.saved) == 1
    inst = builders.instance(host="host1", node="host1", task_state="spawning")
    tracker.instance_claim(ctx, inst, "host1")
    tracker.conductor.placed = [inst]
    tracker.update_available_resource(ctx)  # the claim's usage, already written
    assert tracker.conductor.saved == [(0, 0, 0), (1, 512, 1)]
    tracker.service_id = 7  # the service registered again: its node is written for it
    tracker.update_available_resource(ctx)
    assert len(tracker.conductor.saved) == 3


def test_a_claim_looks_again_only_at_flavors_that_take_numa_cells_or_devices(
        conf, monkeypatch):
    """A claim folds the node's NUMA and PCI shares in; with tens of plain servers on a
    node, asking each one's flavor again on every claim was a few percent of a boot."""
    conf.set_override("vcpus", 64, group="fake_driver")
    driver = FakeDriver()
    driver.init_host("host1")
    tracker = ResourceTracker("host1", driver, RecordingConductor(), RecordingPlacement())
    ctx = context.get_admin_context()
    tracker.update_available_resource(ctx)
    tiny = builders.flavor(memory_mb=16, vcpus=1)
    for _ in range(20):
        tracker.instance_claim(ctx, builders.instance(flavor=tiny), "host1")
    asked = []
    real = resource_tracker.numa_fit.numa_constraints
    monkeypatch.setattr(resource_tracker.numa_fit, "numa_constraints",
                        lambda *args: asked.append(args) or real(*args))
    tracker.instance_claim(ctx, builders.instance(flavor=tiny), "host1")
    assert len(asked) <= 2  # the claimed flavor's own, not the node's twenty


def test_a_claim_made_after_the_instances_were_read_is_not_undone_by_that_read(tracker):
    """A periodic run reads the host's instances before it takes the tracker's lock (or
    its process read them for many hosts at once): a claim landing in between is not in
    the read, so the read is not used and the instances are read again."""
    ctx = context.get_admin_context()
    before_the_claim = tracker.read_held(ctx)
    inst = builders.instance(host="host1", node="host1", task_state="spawning")
    tracker.instance_claim(ctx, inst, "host1")
    tracker.conductor.placed = [inst]  # what the database shows by now
    tracker.update_available_resource(ctx, before_the_claim)
    assert inst.uuid in tracker.tracked
    assert tracker.conductor.saved[-1] == (1, 512, 1)


def test_a_release_made_after_the_instances_were_read_is_not_undone_by_that_read(tracker):
    ctx = context.get_admin_context()
    inst = builders.instance(host="host1", node="host1", task_state="deleting")
    tracker.instance_claim(ctx, inst, "host1")
    tracker.conductor.placed = [inst]
    before_the_release = tracker.read_held(ctx)
    tracker.release(ctx, inst.uuid)
    tracker.conductor.placed = []
    tracker.update_available_resource(ctx, before_the_release)
    assert tracker.tracked == {}


def test_many_hosts_read_what_they_hold_in_one_call_each_for_instances_and_moves(conf):
    asked = []

    class ManyHosts(RecordingConductor):
        def instance_get_all_by_hosts(self, ctx, hosts):
            asked.append(("instances", hosts))
            return {"host2": self.placed}

        def migration_get_in_progress_by_hosts(self, ctx, hosts):
            asked.append(("migrations", hosts))
            return {}

    inst = builders.instance(host="host2", node="host2")
    conductor = ManyHosts(placed=[inst])
    trackers = [ResourceTracker(f"host{i}", FakeDriver(), conductor, RecordingPlacement())
                for i in (1, 2)]
    held = resource_tracker.read_held(context.get_admin_context(), trackers)
    assert asked == [("instances", ["host1", "host2"]), ("migrations", ["host1", "host2"])]
    assert [(h.instances, h.migrations) for h in held] == [([], []), ([inst], [])]
