"""Choosing filters and weighers by configuration, including an operator's own filter."""

import sys
import textwrap

import pytest

from novalite import context, exception
from novalite.scheduler import loader
from tests import builders
from tests.unit.scheduler.test_filter_scheduler import scheduler_over

CUSTOM = textwrap.dedent('''
    from novalite.scheduler.filters import BaseHostFilter


    class SpecifiedHostFilter(BaseHostFilter):
        """Only the host named by the 'requested_host' scheduler hint, if given."""

        def host_passes(self, host_state, spec):
            wanted = spec.get_scheduler_hint("requested_host")
            return wanted is None or host_state.host == wanted
''')


@pytest.fixture
def operator_module(tmp_path, monkeypatch):
    (tmp_path / "myfilters.py").write_text(CUSTOM)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield "myfilters"
    sys.modules.pop("myfilters", None)


def test_default_filters_and_weighers_load(conf):
    assert [f.name for f in loader.load_filters()] == conf.filter_scheduler.enabled_filters
    assert {w.name for w in loader.load_weighers()} >= {"RAMWeigher", "CPUWeigher",
                                                         "DiskWeigher"}


def test_an_operators_filter_runs_by_dotted_path_and_class_name(conf, operator_module):
    conf.set_override("available_filters", ["novalite.scheduler.filters.all_filters",
                                            "myfilters.SpecifiedHostFilter"],
                      group="filter_scheduler")
    conf.set_override("enabled_filters", ["ComputeFilter", "SpecifiedHostFilter"],
                      group="filter_scheduler")
    states = [builders.host_state("a"), builders.host_state("b", memory_mb_used=9000)]
    spec = builders.request_spec(scheduler_hints={"requested_host": ["b"]})
    chosen = scheduler_over(states).select_destinations(
        context.get_admin_context(), spec, ["i1"], False)
    assert chosen[0][0].service_host == "b"


def test_an_unknown_enabled_filter_stops_start_up_naming_it(conf):
    conf.set_override("enabled_filters", ["ComputeFilter", "NoSuchFilter"],
                      group="filter_scheduler")
    with pytest.raises(exception.ConfigInvalid, match="NoSuchFilter"):
        loader.load_filters()


def test_an_unimportable_path_stops_start_up_naming_it(conf):
    conf.set_override("available_filters", ["nowhere.Filter"], group="filter_scheduler")
    with pytest.raises(exception.ConfigInvalid, match="nowhere.Filter"):
        loader.load_filters()
    conf.set_override("weight_classes", ["os.path.join"], group="filter_scheduler")
    with pytest.raises(exception.ConfigInvalid, match="os.path.join"):
        loader.load_weighers()


def test_a_classic_nova_conf_works_as_written(conf, tmp_path):
    path = tmp_path / "nova.conf"
    path.write_text(
        "[DEFAULT]\n"
        "scheduler_driver = filter_scheduler\n"
        "scheduler_available_filters = nova.scheduler.filters.all_filters\n"
        "scheduler_default_filters = RamFilter,CoreFilter,DiskFilter,ComputeFilter\n"
        "scheduler_weight_classes = nova.scheduler.weights.all_weighers\n"
        "scheduler_host_subset_size = 2\n")
    conf(["--config-file", str(path)], project="novalite", default_config_files=[])
    assert conf.scheduler.driver == "filter_scheduler"
    assert conf.filter_scheduler.host_subset_size == 2
    assert [f.name for f in loader.load_filters()] == ["RamFilter", "CoreFilter",
                                                       "DiskFilter", "ComputeFilter"]
    assert {w.name for w in loader.load_weighers()} >= {"RAMWeigher"}
