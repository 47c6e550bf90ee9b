"""Table-driven: MetricsWeigher, PCIWeigher, BuildFailureWeigher, CrossCellWeigher and
ImagePropertiesWeigher; each array form weighs as weigh."""

import numpy as np
import pytest

from novalite import exception
from novalite.objects.image import ImageMeta
from novalite.scheduler.host_table import HostTable
from novalite.scheduler.weighers import weigh_hosts
from novalite.scheduler.weighers.build_failure_weigher import BuildFailureWeigher
from novalite.scheduler.weighers.cross_cell_weigher import CrossCellWeigher
from novalite.scheduler.weighers.image_props_weigher import ImagePropertiesWeigher
from novalite.scheduler.weighers.metrics_weigher import MetricsWeigher
from novalite.scheduler.weighers.pci_weigher import PCIWeigher
from tests import builders


def raw(weigher, hosts, spec=None):
    """Raw weights per host, checked against the array form (when it answers)."""
    spec = spec or builders.request_spec()
    per_host = [float(weigher.weigh(h, spec)) for h in hosts]
    table = HostTable()
    for host in hosts:
        table.add(host)
    rows = np.arange(len(hosts))
    array = weigher.weigh_array(table, rows, spec)
    if array is not None:  # an array, or one number for every row
        assert np.broadcast_to(array, len(hosts)).tolist() == per_host
    assert weigher.multipliers(table, rows).tolist() == \
        [weigher.weight_multiplier(h) for h in hosts]
    return per_host


def order(weigher, hosts, spec=None):
    return [w.host_state.host for w in weigh_hosts([weigher], hosts,
                                                   spec or builders.request_spec())]


def metrics(**values):
    return [{"name": k.replace("_", "."), "value": v} for k, v in values.items()]


@pytest.mark.parametrize(("setting", "required", "reported", "expected"), [
    ([], True, metrics(cpu_percent=10), 0.0),                       # nothing to weigh
    (["cpu.percent=2.0"], True, metrics(cpu_percent=10), 20.0),
    (["cpu.percent=2.0", "cpu.frequency=-0.5"], True,
     metrics(cpu_percent=10, cpu_frequency=100), -30.0),
    (["cpu.percent=2.0", "cpu.frequency=-0.5"], False, metrics(cpu_percent=10), -10000.0),
    (["cpu.percent=2.0", "cpu.frequency=0"], False, metrics(cpu_percent=10), 20.0),
])
def test_metrics_weigher(conf, setting, required, reported, expected):
    conf.set_override("weight_setting", setting, group="metrics")
    conf.set_override("required", required, group="metrics")
    assert raw(MetricsWeigher(), [builders.host_state(metrics=reported)]) == [expected]


def test_a_missing_required_metric_fails_the_request(conf):
    conf.set_override("weight_setting", ["cpu.percent=1"], group="metrics")
    with pytest.raises(exception.ComputeHostMetricNotFound, match="cpu.percent"):
        MetricsWeigher().weigh(builders.host_state(), builders.request_spec())


def test_metrics_weigher_multiplier_and_its_aggregate_key(conf):
    conf.set_override("weight_setting", ["cpu.percent=1"], group="metrics")
    conf.set_override("weight_multiplier", -1.0, group="metrics")
    hosts = [builders.host_state("busy", metrics=metrics(cpu_percent=90)),
             builders.host_state("idle", metrics=metrics(cpu_percent=5))]
    assert order(MetricsWeigher(), hosts) == ["idle", "busy"]
    hosts[0].aggregates = [builders.aggregate(1, metadata={"metrics_weight_multiplier": "2"})]
    assert raw(MetricsWeigher(), hosts) == [90.0, 5.0]
    assert MetricsWeigher().weight_multiplier(hosts[0]) == 2.0  # the aggregate's value
    assert MetricsWeigher().weight_multiplier(hosts[1]) == -1.0


def pools(*counts):
    return [{"vendor_id": "8086", "product_id": f"{i:04d}", "count": c}
            for i, c in enumerate(counts)]


@pytest.mark.parametrize(("reported", "expected"), [
    ([], 100.0), (pools(1), 99.0), (pools(2, 3), 95.0), (pools(150), 1.0)])
def test_pci_weigher_raw_weight(conf, reported, expected):
    assert raw(PCIWeigher(), [builders.host_state(pci_stats=reported)]) == [expected]


def test_pci_weigher_keeps_pci_hosts_free(conf):
    hosts = [builders.host_state("pci", pci_stats=pools(4)), builders.host_state("plain")]
    assert order(PCIWeigher(), hosts) == ["plain", "pci"]


def test_build_failure_weigher_avoids_failing_hosts(conf):
    hosts = [builders.host_state("failing", stats={"failed_builds": "3"}),
             builders.host_state("fine")]
    assert raw(BuildFailureWeigher(), hosts) == [3.0, 0.0]
    weighed = weigh_hosts([BuildFailureWeigher()], hosts, builders.request_spec())
    assert [w.host_state.host for w in weighed] == ["fine", "failing"]
    assert weighed[1].weight == -1000000.0
    conf.set_override("build_failure_weight_multiplier", 0.0, group="filter_scheduler")
    assert {w.weight for w in weigh_hosts([BuildFailureWeigher()], hosts,
                                          builders.request_spec())} == {0.0}


@pytest.mark.parametrize(("destination", "expected"), [
    (None, [0.0, 0.0]),
    ({"host": "h1"}, [0.0, 0.0]),                                         # no cell
    ({"cell": "cell-a", "allow_cross_cell_move": False}, [0.0, 0.0]),
    ({"cell": "cell-a", "allow_cross_cell_move": True}, [1.0, -1.0]),
])
def test_cross_cell_weigher(conf, destination, expected):
    hosts = [builders.host_state("h1", cell_uuid="cell-a"),
             builders.host_state("h2", cell_uuid="cell-b")]
    spec = builders.request_spec(requested_destination=destination)
    assert raw(CrossCellWeigher(), hosts, spec) == expected


IMAGES = {"win-1": {"os_distro": "windows", "hw_machine_type": "q35"},
          "win-2": {"os_distro": "windows", "hw_machine_type": "pc"},
          "lin-1": {"os_distro": "ubuntu", "hw_machine_type": "q35"}}


def _image_weigher():
    weigher = ImagePropertiesWeigher()
    weigher.image_properties = lambda uuids: {u: IMAGES[u] for u in uuids if u in IMAGES}
    return weigher


@pytest.mark.parametrize(("multiplier", "setting", "expected"), [
    (0.0, [], [0.0, 0.0, 0.0]),                              # off by default
    (1.0, [], [3.0, 1.0, 0.0]),                              # every shared pair counts 1
    (1.0, ["os_distro=1", "hw_machine_type=-1"], [1.0, -1.0, 0.0]),
    (1.0, ["os_distro=2"], [4.0, 0.0, 0.0]),                 # unlisted properties: 0
])
def test_image_properties_weigher(conf, multiplier, setting, expected):
    conf.set_override("image_props_weight_multiplier", multiplier, group="filter_scheduler")
    conf.set_override("image_props_weight_setting", setting, group="filter_scheduler")
    hosts = [builders.host_state("windows", instances={"win-1", "win-2"}),
             builders.host_state("linux", instances={"lin-1", "gone"}),
             builders.host_state("empty")]
    spec = builders.request_spec(image=ImageMeta(id="new", properties={
        "os_distro": "windows", "hw_machine_type": "q35"}))
    assert raw(_image_weigher(), hosts, spec) == expected
    assert _image_weigher().needs_instances(spec) is (multiplier != 0.0)


def test_image_properties_come_from_the_instances_images(db):
    from novalite.db.api import instances
    from novalite.image import db as images
    from novalite.image.record import ImageRecord

    images.image_create(ImageRecord(id="img-w", name="w", properties={"os_distro": "windows"}))
    inst = builders.instance(image_ref="img-w")
    instances.instance_create({"uuid": inst.uuid, "image_ref": "img-w", "host": "h1",
                               "vm_state": "active", "flavor": builders.flavor()})
    assert instances.image_properties_by_instance([inst.uuid, "unknown"]) == \
        {inst.uuid: {"os_distro": "windows"}}
