import random

import pytest

from novalite import context, exception
from novalite.scheduler.chance import ChanceScheduler
from novalite.scheduler.driver import load_scheduler
from novalite.scheduler.filter_scheduler import FilterScheduler
from tests import builders
from tests.unit.scheduler.test_filter_scheduler import StaticHostManager


def test_chance_picks_up_hosts_at_random_with_alternates(conf):
    random.seed(7)
    states = [builders.host_state(h) for h in ("a", "b", "c")]
    states.append(builders.host_state("down", service_up=False))
    scheduler = ChanceScheduler(StaticHostManager(states))
    seen = set()
    for _ in range(20):
        (host_list,) = scheduler.select_destinations(
            context.get_admin_context(), builders.request_spec(), ["i1"], True)
        assert len(host_list) == 3 and len({s.service_host for s in host_list}) == 3
        seen.add(host_list[0].service_host)
    assert seen == {"a", "b", "c"}


def test_chance_without_any_up_host_is_no_valid_host(conf):
    scheduler = ChanceScheduler(StaticHostManager([builders.host_state(service_up=False)]))
    with pytest.raises(exception.NoValidHost):
        scheduler.select_destinations(context.get_admin_context(), builders.request_spec(),
                                      ["i1"], False)


@pytest.mark.parametrize(("name", "cls"), [
    ("filter_scheduler", FilterScheduler),
    ("chance_scheduler", ChanceScheduler),
    ("nova.scheduler.filter_scheduler.FilterScheduler", FilterScheduler),
    ("nova.scheduler.chance.ChanceScheduler", ChanceScheduler),
])
def test_drivers_load_by_name_and_by_novas_old_class_paths(conf, name, cls):
    assert type(load_scheduler(name)) is cls


def test_an_unknown_driver_is_refused_naming_it(conf):
    with pytest.raises(exception.ConfigInvalid, match="no_such_scheduler"):
        load_scheduler("no_such_scheduler")
