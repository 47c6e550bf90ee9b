"""The compute side of the new scheduler inputs: builds failed in a row (the
`failed_builds` stat, reset by a success), and the NUMA cells, PCI devices and metrics a
node reports, with its instances' shares taken and claims refused beyond them."""

import json

import pytest

from novalite import context, exception
from novalite.compute.manager import ComputeManager
from novalite.compute.resource_tracker import ResourceTracker
from novalite.hardware import numa
from novalite.objects.instance import Instance
from novalite.objects.request_spec import FilterProperties
from novalite.virt.fake import FakeDriver
from tests import builders
from tests.unit.compute.test_resource_tracker import RecordingPlacement


class RecordingConductor:
    """The conductor as the compute sees it: saves nodes, updates instances."""

    def __init__(self):
        self.nodes = []
        self.events = []

    def instance_get_all_by_host(self, ctx, host):
        return []

    def migration_get_in_progress_by_host(self, ctx, host):
        return []

    def block_device_mapping_get_all_by_instance(self, ctx, instance_uuid):
        return []

    def compute_node_save(self, ctx, node, service_id=None):
        self.nodes.append(builders.node(**{**node.fields(), "host": node.host}))
        return node

    def instance_update(self, ctx, uuid, values, expected_task_state=None,
                        check_task_state=True, expected_host=None, starts_event=None,
                        ends_event=None):
        self.events += ["start"] * bool(starts_event) + ["finish"] * bool(ends_event)
        return Instance(uuid=uuid, flavor=builders.flavor(), **{
            k: v for k, v in values.items() if k in Instance.__dataclass_fields__})

    def action_event_start(self, *args):
        self.events.append("start")

    def action_event_finish(self, *args):
        self.events.append("finish")

    def instance_fault_create(self, *args):
        self.events.append("fault")


def tracker(driver=None):
    driver = driver or FakeDriver()
    driver.init_host("host1")
    rt = ResourceTracker("host1", driver, RecordingConductor(), RecordingPlacement())
    rt.update_available_resource(context.get_admin_context())
    return rt


def last_stats(rt):
    return rt.conductor.nodes[-1].stats


def test_failed_builds_count_up_and_a_success_resets_them(conf):
    rt, ctx = tracker(), context.get_admin_context()
    assert "failed_builds" not in last_stats(rt)
    rt.build_finished(ctx, "host1", "i1", failed=True)
    rt.build_finished(ctx, "host1", "i1", failed=True)
    assert last_stats(rt)["failed_builds"] == "2"
    reports = len(rt.conductor.nodes)
    rt.build_finished(ctx, "host1", "i1", failed=False)
    assert last_stats(rt)["failed_builds"] == "0"
    rt.build_finished(ctx, "host1", "i1", failed=False)  # already 0: nothing new to report
    assert len(rt.conductor.nodes) == reports + 1


def test_the_count_survives_the_periodic_report(conf):
    rt, ctx = tracker(), context.get_admin_context()
    rt.build_finished(ctx, "host1", "i1", failed=True)
    rt.update_available_resource(ctx)
    assert last_stats(rt)["failed_builds"] == "1"


def test_builds_under_way_are_the_nodes_io_workload(conf):
    """Nova's io_workload: instances with a task under way, what IoOpsFilter reads."""
    rt, ctx = tracker(), context.get_admin_context()
    for uuid in ("i1", "i2"):
        rt.instance_claim(ctx, Instance(uuid=uuid, flavor=builders.flavor()), "host1")
    assert rt.conductor.nodes[-1].current_workload == 2
    rt.build_finished(ctx, "host1", "i1", failed=False)
    assert rt.conductor.nodes[-1].current_workload == 1
    rt.release(ctx, "i2")
    assert rt.conductor.nodes[-1].current_workload == 0


class FailingDriver(FakeDriver):
    def spawn(self, ctx, instance, image_meta, power_on=True, block_device_info=None):
        raise RuntimeError("the hypervisor said no")


@pytest.fixture
def manager(conf):
    def make(driver=None, max_attempts=3):
        conf.set_override("max_attempts", max_attempts, group="scheduler")
        compute = ComputeManager.__new__(ComputeManager)
        ComputeManager.__init__(compute, "host1")
        compute.driver = driver or FakeDriver()
        compute.conductor = RecordingConductor()
        compute.rt = tracker(compute.driver)
        compute.compute_task = type("Tasks", (), {"build_instances": lambda *a: None})()
        compute.scheduler = type("Sched", (), {"update_instance_info": lambda *a: None})()
        return compute
    return make


def build(compute):
    instance = builders.instance(host="host1", node="host1")
    compute.build_and_run_instance(context.get_admin_context(), instance,
                                   builders.request_spec(instance_uuid=instance.uuid),
                                   FilterProperties(), [], "host1")


@pytest.mark.parametrize(("driver", "max_attempts", "threshold", "expected"), [
    (FailingDriver, 3, 10, "1"),        # rescheduled: a failed build
    (FailingDriver, 1, 10, "1"),        # no reschedule, ERROR: a failed build too
    (FailingDriver, 3, 0, None),        # counting is off
    (FakeDriver, 3, 10, "0"),           # success: the count reads 0
])
def test_the_compute_manager_counts_build_results(conf, manager, driver, max_attempts,
                                                  threshold, expected):
    conf.set_override("consecutive_build_service_disable_threshold", threshold,
                      group="compute")
    compute = manager(driver(), max_attempts)
    build(compute)
    assert last_stats(compute.rt).get("failed_builds") == expected


def test_a_success_after_failures_resets_the_count(conf, manager):
    compute = manager(FailingDriver())
    build(compute)
    build(compute)
    assert last_stats(compute.rt)["failed_builds"] == "2"
    compute.driver = compute.rt.driver = FakeDriver()
    compute.driver.init_host("host1")
    build(compute)
    assert last_stats(compute.rt)["failed_builds"] == "0"


def test_a_server_group_policy_violation_is_not_a_failed_build(conf, manager, monkeypatch):
    from novalite.compute import manager as manager_module

    def violated(*args):
        raise exception.GroupAffinityViolation(policy="anti-affinity")

    monkeypatch.setattr(manager_module.group_policy, "validate_placement", violated)
    compute = manager()
    build(compute)
    assert "failed_builds" not in last_stats(compute.rt)


def test_the_fake_driver_reports_numa_pci_and_metrics_from_its_options(conf):
    conf.set_override("numa_nodes", 2, group="fake_driver")
    conf.set_override("threads_per_core", 2, group="fake_driver")
    conf.set_override("pci_devices", [json.dumps({"vendor_id": "8086", "product_id": "1520",
                                                  "count": 2, "numa_node": 1})],
                      group="fake_driver")
    conf.set_override("metrics", {"cpu.percent": "12.5"}, group="fake_driver")
    node = tracker().conductor.nodes[-1]
    cells = numa.NUMATopology.from_dict(node.numa_topology).cells
    assert [sorted(c.cpuset) for c in cells] == [list(range(8)), list(range(8, 16))]
    assert cells[0].siblings[0] == {0, 1} and cells[0].memory == 32768
    assert node.pci_stats == [{"vendor_id": "8086", "product_id": "1520", "count": 2,
                               "numa_node": 1, "dev_type": "type-PCI"}]
    assert node.metrics == [{"name": "cpu.percent", "value": 12.5, "source": "fake"}]


def test_by_default_the_fake_driver_reports_none(conf):
    node = tracker().conductor.nodes[-1]
    assert (node.numa_topology, node.pci_stats, node.metrics) == (None, [], [])


def test_claims_pin_cpus_and_take_devices_then_refuse(conf):
    conf.set_override("alias", ['{"name": "nic", "vendor_id": "8086", '
                                '"product_id": "1520"}'], group="pci")
    driver = FakeDriver(numa_topology=numa.evenly_split(4, 8192, 1).to_dict(),
                        pci_stats=[{"vendor_id": "8086", "product_id": "1520", "count": 1,
                                    "numa_node": 0}])
    rt, ctx = tracker(driver), context.get_admin_context()
    pinned = builders.flavor(vcpus=2, memory_mb=512,
                             extra_specs={"hw:cpu_policy": "dedicated"})
    rt.instance_claim(ctx, builders.instance(flavor=pinned), "host1")
    rt.instance_claim(ctx, builders.instance(flavor=pinned), "host1")
    cell = rt.conductor.nodes[-1].numa_topology["cells"][0]
    assert cell["pinned_cpus"] == [0, 1, 2, 3] and cell["memory_usage"] == 1024
    with pytest.raises(exception.ComputeResourcesUnavailable, match="NUMA"):
        rt.instance_claim(ctx, builders.instance(flavor=pinned), "host1")
    nic = builders.flavor(extra_specs={"pci_passthrough:alias": "nic:1"})
    first = builders.instance(flavor=nic)
    rt.instance_claim(ctx, first, "host1")
    assert rt.conductor.nodes[-1].pci_stats == []
    with pytest.raises(exception.ComputeResourcesUnavailable, match="PCI"):
        rt.instance_claim(ctx, builders.instance(flavor=nic), "host1")
    rt.release(ctx, first.uuid)
    assert rt.conductor.nodes[-1].pci_stats[0]["count"] == 1
