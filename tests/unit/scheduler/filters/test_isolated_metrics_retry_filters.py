"""Table-driven: IsolatedHostsFilter, MetricsFilter and RetryFilter; each array form
answers as host_passes."""

import numpy as np
import pytest

from novalite.objects.image import ImageMeta
from novalite.scheduler.filters.isolated_hosts_filter import IsolatedHostsFilter
from novalite.scheduler.filters.metrics_filter import MetricsFilter
from novalite.scheduler.filters.retry_filter import RetryFilter
from novalite.scheduler.host_table import HostTable
from tests import builders


def _both_forms(flt, states, spec):
    """host_passes per host, checked against filter_array (when it answers)."""
    per_host = [flt.host_passes(s, spec) for s in states]
    table = HostTable()
    for state in states:
        table.add(state)
    array = flt.filter_array(table, np.arange(len(states)), spec)
    if array is not None:
        assert array.tolist() == per_host
    return per_host


def _image(image_id):
    return ImageMeta(id=image_id) if image_id else None


# hosts: "iso" is isolated, "open" is not; image "img-iso" is isolated (when configured).
@pytest.mark.parametrize(("images", "restrict", "image", "iso_passes", "open_passes"), [
    (["img-iso"], True, "img-iso", True, False),      # isolated image: isolated hosts only
    (["img-iso"], True, "img-other", False, True),    # other images: not on isolated hosts
    (["img-iso"], False, "img-iso", True, False),
    (["img-iso"], False, "img-other", True, True),    # unrestricted: isolated hosts take all
    (["img-iso"], True, None, False, True),           # volume-backed: an "other image"
    ([], True, "img-any", False, True),               # no isolated images, hosts restricted
    ([], False, "img-any", True, True),
])
def test_isolated_hosts_filter(conf, images, restrict, image, iso_passes, open_passes):
    conf.set_override("isolated_images", images, group="filter_scheduler")
    conf.set_override("isolated_hosts", ["iso"], group="filter_scheduler")
    conf.set_override("restrict_isolated_hosts_to_isolated_images", restrict,
                      group="filter_scheduler")
    spec = builders.request_spec(image=_image(image))
    hosts = [builders.host_state("iso"), builders.host_state("open")]
    assert _both_forms(IsolatedHostsFilter(), hosts, spec) == [iso_passes, open_passes]


def test_isolated_hosts_filter_runs_once_per_request():
    assert not IsolatedHostsFilter().run_filter_for_index(1)


def _metrics(**values):
    return [{"name": name.replace("_", "."), "value": v} for name, v in values.items()]


@pytest.mark.parametrize(("setting", "reported", "passes"), [
    ([], [], True),                                            # nothing asked for
    (["cpu.percent=1.0"], _metrics(cpu_percent=20), True),
    (["cpu.percent=1.0"], [], False),
    (["cpu.percent=1.0", "cpu.frequency=-1"], _metrics(cpu_percent=20), False),
    (["cpu.percent=1.0", "cpu.frequency=-1"],
     _metrics(cpu_percent=20, cpu_frequency=2400), True),
    (["cpu.percent=bad"], [], True),                           # bad items are ignored
])
def test_metrics_filter(conf, setting, reported, passes):
    conf.set_override("weight_setting", setting, group="metrics")
    hosts = [builders.host_state(metrics=reported)]
    assert _both_forms(MetricsFilter(), hosts, builders.request_spec()) == [passes]


@pytest.mark.parametrize(("retry", "passes"), [
    (None, [True, True, True]),
    ({"num_attempts": 1, "hosts": []}, [True, True, True]),
    ({"num_attempts": 2, "hosts": [["h1", "h1"]]}, [False, True, True]),
    ({"num_attempts": 3, "hosts": [["h1", "h1"], ["h3", "h3"]]}, [False, True, False]),
    ({"num_attempts": 2, "hosts": [["h2", "other-node"]]}, [True, True, True]),  # by node
])
def test_retry_filter(conf, retry, passes):
    hosts = [builders.host_state(h) for h in ("h1", "h2", "h3")]
    spec = builders.request_spec(retry=retry)
    assert _both_forms(RetryFilter(), hosts, spec) == passes


def test_a_reschedule_records_the_tried_hosts_in_the_spec(conf, monkeypatch):
    from novalite.conductor.tasks import build
    from novalite.db.api.build_progress import BuildProgress
    from novalite.objects.request_spec import FilterProperties, SchedulerRetries, Selection

    built = []
    monkeypatch.setattr(build.build_resume, "progress", lambda uuids: {uuids[0]: BuildProgress(
        "building", "scheduling", None, None, None, "h1")})  # given back by h1
    monkeypatch.setattr(build.actions, "action_event_start", lambda *a: None)
    monkeypatch.setattr(build, "build_on", lambda *a: built.append(a))
    spec = builders.request_spec()
    props = FilterProperties(num_attempts=1, hosts=[["h1", "h1"]])
    alternate = Selection(service_host="h2", nodename="h2", compute_node_uuid="n2",
                          instance_uuid=spec.instance_uuid)  # no placement candidate
    build.RescheduleTask(None, spec.instance_uuid, spec, props, [alternate], None).execute()
    assert spec.retry == SchedulerRetries(num_attempts=2, hosts=[["h1", "h1"]])
    assert built
