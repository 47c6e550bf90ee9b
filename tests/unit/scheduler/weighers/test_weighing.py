import pytest

from novalite.scheduler.weighers import normalize, weigh_hosts
from novalite.scheduler.weighers.resource_weighers import CPUWeigher, DiskWeigher, RAMWeigher
from tests import builders


@pytest.mark.parametrize(("weights", "minval", "maxval", "expected"), [
    ([], None, None, []),
    ([5, 5, 5], None, None, [0.0, 0.0, 0.0]),
    ([1, 3, 2], None, None, [0.0, 1.0, 0.5]),
    ([0, 50, 100], 0, None, [0.0, 0.5, 1.0]),
    ([25, 50, 100], 0, None, [0.25, 0.5, 1.0]),
    ([5, 15], 0, 20, [0.25, 0.75]),
])
def test_normalize_like_nova(weights, minval, maxval, expected):
    assert normalize(weights, minval, maxval).tolist() == expected


def _hosts():
    return [builders.host_state("small", memory_mb_used=48000),
            builders.host_state("big"),
            builders.host_state("mid", memory_mb_used=24000)]


def test_most_free_ram_first(conf):
    order = [w.host_state.host for w in weigh_hosts([RAMWeigher()], _hosts(),
                                                    builders.request_spec())]
    assert order == ["big", "mid", "small"]


def test_negative_multiplier_stacks(conf):
    conf.set_override("ram_weight_multiplier", -1.0, group="filter_scheduler")
    order = [w.host_state.host for w in weigh_hosts([RAMWeigher()], _hosts(),
                                                    builders.request_spec())]
    assert order == ["small", "mid", "big"]


def test_weights_are_summed_with_each_weighers_share_recorded(conf):
    conf.set_override("cpu_weight_multiplier", 2.0, group="filter_scheduler")
    hosts = [builders.host_state("a", vcpus_used=32), builders.host_state("b")]
    weighed = weigh_hosts([RAMWeigher(), CPUWeigher(), DiskWeigher()], hosts,
                          builders.request_spec())
    best = weighed[0]
    assert best.host_state.host == "b"
    # minval 0 means x / max: equal free RAM and disk score 1.0 on both hosts
    assert best.by_weigher == {"RAMWeigher": 1.0, "CPUWeigher": 2.0, "DiskWeigher": 1.0}
    assert weighed[1].by_weigher["CPUWeigher"] == pytest.approx(1.0)  # 32/64 free x 2


def test_a_single_host_is_not_weighed(conf):
    weighed = weigh_hosts([RAMWeigher()], [builders.host_state()], builders.request_spec())
    assert weighed[0].weight == 0.0


def test_aggregate_metadata_overrides_the_multiplier(conf):
    stacking = builders.aggregate(name="pack", metadata={"ram_weight_multiplier": "-1.0"})
    hosts = [builders.host_state("small", memory_mb_used=48000, aggregates=[stacking]),
             builders.host_state("big", aggregates=[stacking])]
    order = [w.host_state.host for w in weigh_hosts([RAMWeigher()], hosts,
                                                    builders.request_spec())]
    assert order == ["small", "big"]
