"""The FilterScheduler's selection contract, on hand-built host states."""

import logging
import random
import threading

import orjson
import pytest

from novalite import context, exception
from novalite.clients.placement import Claim
from novalite.objects.allocation_request import AllocationCandidates, AllocationRequest
from novalite.objects.claimant import Claimant
from novalite.scheduler.filter_scheduler import FilterScheduler
from novalite.scheduler.host_manager import HostManager
from tests import builders
from tests.waiting import wait_for


class StaticHostManager(HostManager):
    def __init__(self, states):
        super().__init__()
        self.ended = set()  # builds the watchdog or a rollback ended (ERROR, deleted)
        self.placed = set()  # placed meanwhile by another handling of the request
        for host_state in states:
            self.table.add(host_state)

    def claimant(self, instance_uuid):
        return (Claimant.GONE if instance_uuid in self.ended else
                Claimant.PLACED if instance_uuid in self.placed else Claimant.WAITING)

    def refresh(self):
        return self.table

    def fill_instances(self, table):
        pass  # the states carry their instances already


@pytest.fixture(autouse=True)
def resource_filters(conf):
    """Placement (which answers for RAM, vCPU and disk) offers every host here, so the
    host filters that count those stand in for it."""
    conf.set_override("enabled_filters", ["AvailabilityZoneFilter", "ComputeFilter",
                                          "RamFilter", "CoreFilter", "DiskFilter",
                                          "ComputeCapabilitiesFilter", "ImagePropertiesFilter",
                                          "ServerGroupAntiAffinityFilter",
                                          "ServerGroupAffinityFilter"],
                      group="filter_scheduler")


def offering(*uuids: str) -> AllocationCandidates:
    """Placement's answer offering each of the nodes, one VCPU from each."""
    return AllocationCandidates.decode(orjson.dumps({
        "allocation_requests": [{"allocations": {u: {"resources": {"VCPU": 1}}}}
                                for u in uuids],
        "provider_summaries": {u: {"resources": {}, "root_provider_uuid": u}
                               for u in uuids}}))


class OfferEverything:
    """Placement as these tests need it: every host of the table is a candidate, every
    claim succeeds (unless the host is in `refuse`), and it remembers what was asked."""

    def __init__(self, table, refuse=()):
        self.table, self.refuse, self.queries, self.claims = table, set(refuse), [], []
        self.freed = []
        self.found = set()  # consumers holding the claim already (another handling's)

    def get_allocation_candidates(self, ctx, query):
        self.queries.append(query)
        return offering(*(s.uuid for s in self.table.states))

    def claim_resources(self, ctx, consumer, candidate, project_id, user_id):
        [node] = candidate.allocations
        host = next(s.host for s in self.table.states if s.uuid == node)
        self.claims.append((consumer, host))
        if host in self.refuse:
            return Claim.REFUSED
        return Claim.FOUND if consumer in self.found else Claim.MADE

    def delete_allocation_for_instance(self, ctx, consumer):
        self.freed.append(consumer)
        return True


def scheduler_over(states, refuse=()) -> FilterScheduler:
    manager = StaticHostManager(states)
    return FilterScheduler(manager, reportclient=OfferEverything(manager.table, refuse))


def state(host, used_mb=0, **kw):
    return builders.host_state(host, memory_mb_used=used_mb, **kw)


def select(states, spec=None, uuids=("i1",), alternates=True):
    scheduler = scheduler_over(states)
    return scheduler.select_destinations(context.get_admin_context(),
                                         spec or builders.request_spec(), list(uuids),
                                         alternates)


def test_most_free_ram_wins_and_alternates_follow_in_order(conf):
    states = [state("a", 40000), state("b"), state("c", 20000), state("d", 60000)]
    assert [s.service_host for s in select(states)[0]] == ["b", "c", "a"]  # max_attempts 3


def test_no_alternates_when_not_asked(conf):
    assert len(select([state("a"), state("b")], alternates=False)[0]) == 1


def test_down_disabled_and_full_hosts_are_filtered(conf):
    states = [state("down", service_up=False), state("off", service_disabled=True),
              state("full", 64900), state("ok", 60000)]
    assert [s.service_host for s in select(states)[0]] == ["ok"]


def test_ignore_and_force_hosts_apply_before_filters(conf):
    states = [state("a"), state("b", 1000), state("c", 2000)]
    assert select(states, builders.request_spec(ignore_hosts=["a"]))[0][0].service_host == "b"
    forced = select(states, builders.request_spec(force_hosts=["c"]))[0]
    assert [s.service_host for s in forced] == ["c"]


def test_forced_hosts_skip_the_filters_but_a_requested_destination_does_not(conf):
    states = [state("a"), state("down", service_up=False)]
    forced = builders.request_spec(force_hosts=["down"])
    assert select(states, forced)[0][0].service_host == "down"
    by_node = builders.request_spec(force_nodes=["down"])
    assert select(states, by_node)[0][0].nodename == "down"
    assert select(states, builders.request_spec(
        requested_destination={"host": "a", "node": None}))[0][0].service_host == "a"
    with pytest.raises(exception.NoValidHost, match=r"ComputeFilter removed 1 \(down\)"):
        select(states, builders.request_spec(requested_destination={"host": "down"}))


def test_no_valid_host_says_why_per_host(conf):
    spec = builders.request_spec(flavor=builders.flavor(memory_mb=2048, vcpus=8))
    states = [state("compute3", 64512), state("compute4", vcpus=4)]  # 512 MB free
    with pytest.raises(exception.NoValidHost) as err:
        select(states, spec)
    message = err.value.format_message()
    assert "compute3: RamFilter: 512 MB free, 2,048 MB wanted" in message
    assert "compute4: CoreFilter: 4 vCPUs on the host, 8 wanted" in message


def test_multi_create_consumes_between_instances(conf):
    states = [state("a", 63000), state("b", 63500)]  # 2024 and 1524 MB free
    result = select(states, uuids=("i1", "i2", "i3"))
    assert [r[0].service_host for r in result] == ["a", "b", "a"]
    assert states[0].free_ram_mb == 2024 - 2 * 512


def test_too_few_hosts_for_min_count_explains_and_gives_back(conf):
    states = [state("a", 64000), state("down", service_up=False)]  # a: 1024 MB free
    spec = builders.request_spec(min_count=3, num_instances=3)
    scheduler = scheduler_over(states)
    with pytest.raises(exception.NoValidHost) as err:
        scheduler.select_destinations(context.get_admin_context(), spec, ["i1", "i2", "i3"],
                                      True)
    assert err.value.format_message() == (
        "No valid host was found. There are not enough hosts available. 2 hosts: "
        "ComputeFilter removed 1 (down); RamFilter removed 1 (a). Why: down: ComputeFilter: "
        "service down; a: RamFilter: 0 MB free, 512 MB wanted. Placement offered 2 hosts "
        "for limit=1000, resources=DISK_GB:1,MEMORY_MB:512,VCPU:1, "
        "root_required=!COMPUTE_STATUS_DISABLED.")
    assert states[0].free_ram_mb == 1024
    assert scheduler.reportclient.freed == ["i1", "i2"]  # the claims made are given back


def test_fewer_than_requested_but_at_least_min_count_succeeds(conf):
    spec = builders.request_spec(min_count=1, num_instances=3)
    assert len(select([state("a", 64500)], spec, uuids=("i1", "i2", "i3"))) == 1


def test_host_subset_size_picks_among_the_best(conf):
    conf.set_override("host_subset_size", 2, group="filter_scheduler")
    random.seed(42)
    chosen = {select([state("a"), state("b", 1000), state("c", 30000)])[0][0].service_host
              for _ in range(30)}
    assert chosen == {"a", "b"}


def test_anti_affinity_group_spreads_members(conf):
    states = [state("a", instances={"m1"}), state("b", 1000)]
    spec = builders.request_spec(instance_group={"policy": "anti-affinity",
                                                 "members": ["m1"]})
    assert select(states, spec)[0][0].service_host == "b"


@pytest.mark.parametrize(("policy", "rules", "expected"), [
    ("anti-affinity", {}, 3),  # one member per host
    ("affinity", {}, 1),  # all on the first member's host
    ("anti-affinity", {"max_server_per_host": 2}, 2),
])
def test_a_multi_create_into_a_group_sees_its_own_earlier_members(conf, policy, rules,
                                                                 expected):
    uuids = ["n1", "n2", "n3"] if expected != 2 else ["n1", "n2", "n3", "n4"]
    spec = builders.request_spec(instance_group={"policy": policy, "rules": rules,
                                                 "members": uuids, "hosts": []},
                                 min_count=len(uuids))
    states = [state(h) for h in ("a", "b", "c")][: 2 if expected == 2 else 3]
    chosen = [hl[0].service_host for hl in select(states, spec, uuids)]
    assert len(set(chosen)) == expected
    assert spec.instance_group.hosts == []  # the caller's spec is left as it came


def test_limits_travel_with_the_selection(conf):
    limits = select([state("a")])[0][0].limits
    assert limits["memory_mb"] == 65536 and limits["vcpu"] == 64


def test_the_chosen_selection_explains_itself(conf):
    chosen = select([state("a", service_up=False), state("b"), state("c", 30000)])[0]
    assert chosen[0].decision.startswith(
        "3 hosts: ComputeFilter removed 1 (a). Why: a: ComputeFilter: service down. "
        "Placement offered 3 hosts for limit=1000, "
        "resources=DISK_GB:1,MEMORY_MB:512,VCPU:1, root_required=!COMPUTE_STATUS_DISABLED. "
        "Top weights: b ")
    assert "RAMWeigher 1.00" in chosen[0].decision and chosen[1].decision is None


def test_placement_is_asked_with_the_pre_filters_and_each_choice_is_claimed(conf):
    scheduler = scheduler_over([state("a"), state("b", 1000)])
    chosen = scheduler.select_destinations(context.get_admin_context(),
                                           builders.request_spec(), ["i1", "i2"], True)
    placement = scheduler.reportclient
    assert "root_required=%21COMPUTE_STATUS_DISABLED" in placement.queries[0] or \
        "root_required=!COMPUTE_STATUS_DISABLED" in placement.queries[0]
    assert placement.claims == [("i1", "a"), ("i2", "b")]
    assert chosen[0][0].allocation_request == AllocationRequest(
        allocations={chosen[0][0].compute_node_uuid: {"VCPU": 1}})
    assert chosen[0][1].allocation_request is not None  # the alternate's, unclaimed


def test_a_refused_claim_moves_the_choice_to_the_next_best_host(conf):
    scheduler = scheduler_over([state("a"), state("b", 1000), state("c", 2000)],
                               refuse={"a"})
    (host_list,) = scheduler.select_destinations(context.get_admin_context(),
                                                 builders.request_spec(), ["i1"], True)
    assert [s.service_host for s in host_list] == ["b", "c"]
    assert "placement claim removed 1 (a)" in host_list[0].decision


def test_only_hosts_placement_offers_are_considered(conf):
    scheduler = scheduler_over([state("a"), state("b")])
    offered = scheduler.reportclient.table.states[1].uuid
    scheduler.reportclient.get_allocation_candidates = lambda ctx, q: offering(offered)
    (host_list,) = scheduler.select_destinations(context.get_admin_context(),
                                                 builders.request_spec(), ["i1"], True)
    assert [s.service_host for s in host_list] == ["b"]


def test_requests_asking_placement_the_same_at_once_share_one_answer(conf):
    scheduler = scheduler_over([state("a"), state("b")])
    placement = scheduler.reportclient
    asked, answer = threading.Event(), threading.Event()
    ask = placement.get_allocation_candidates

    def slow(ctx, query):
        asked.set()
        assert answer.wait(10)
        return ask(ctx, query)

    placement.get_allocation_candidates = slow
    chosen = {}

    def boot(uuid):
        chosen[uuid] = scheduler.select_destinations(
            context.get_admin_context(), builders.request_spec(), [uuid], False)

    first = threading.Thread(target=boot, args=("i1",))
    first.start()
    assert asked.wait(10)
    second = threading.Thread(target=boot, args=("i2",))
    second.start()
    [flight] = scheduler.offered._flying.values()
    wait_for(lambda: flight.waiters == 1, what="the second request waiting")
    answer.set()
    first.join(10), second.join(10)
    assert len(placement.queries) == 1
    assert {chosen[uuid][0][0].service_host for uuid in ("i1", "i2")} == {"a", "b"}
    assert len(placement.claims) == 2


def test_nothing_offered_is_no_valid_host_saying_what_placement_was_asked(conf):
    scheduler = scheduler_over([state("a")])
    scheduler.reportclient.get_allocation_candidates = lambda ctx, q: offering()
    with pytest.raises(exception.NoValidHost, match=r"0 hosts: no filter removed any. "
                       r"Placement offered 0 hosts for limit=1000, "
                       r"resources=DISK_GB:1,MEMORY_MB:512,VCPU:1, "
                       r"root_required=!COMPUTE_STATUS_DISABLED."):
        scheduler.select_destinations(context.get_admin_context(), builders.request_spec(),
                                      ["i1"], True)


def test_a_claim_landing_after_its_build_was_ended_is_given_back(conf):
    """The conductor that asked was killed; the watchdog put the instance in ERROR and
    freed its claims before this scheduler got to it: the claim it makes now would belong
    to no live server, so it is freed and nothing is chosen for the instance."""
    scheduler = scheduler_over([state("a"), state("b")])
    scheduler.host_manager.ended.add("i1")
    with pytest.raises(exception.NoValidHost):
        scheduler.select_destinations(context.get_admin_context(), builders.request_spec(),
                                      ["i1"], True)
    placement = scheduler.reportclient
    assert len(placement.claims) == 1  # one claim landed, and no other host was tried
    assert placement.freed == ["i1"]


@pytest.mark.parametrize(("found", "freed"), [(True, []), (False, ["i1"])],
                         ids=["found", "made"])
def test_a_claim_for_an_instance_placed_meanwhile_is_kept_only_if_found(conf, found, freed):
    """The request was handled twice at once (a call sent again after its reply queue
    was lost), and the other handling placed the instance first: the claim placement
    says it holds already is that one's and stays; one made now is nobody's."""
    scheduler = scheduler_over([state("a"), state("b")])
    scheduler.host_manager.placed.add("i1")
    if found:
        scheduler.reportclient.found.add("i1")
    with pytest.raises(exception.NoValidHost):
        scheduler.select_destinations(context.get_admin_context(), builders.request_spec(),
                                      ["i1"], True)
    assert len(scheduler.reportclient.claims) == 1
    assert scheduler.reportclient.freed == freed


def test_a_request_placed_in_part_leaves_the_claims_it_found_to_their_makers(conf):
    states = [state("a", 64000)]  # 1024 MB free: two of the three
    spec = builders.request_spec(min_count=3, num_instances=3)
    scheduler = scheduler_over(states)
    scheduler.reportclient.found.add("i1")
    with pytest.raises(exception.NoValidHost):
        scheduler.select_destinations(context.get_admin_context(), spec, ["i1", "i2", "i3"],
                                      True)
    assert scheduler.reportclient.freed == ["i2"]


def test_each_request_logs_where_its_time_went(conf, caplog):
    caplog.set_level(logging.INFO, logger="novalite.scheduler.filter_scheduler")
    select([state("a"), state("b")], uuids=("i1", "i2"))
    (line,) = [r.getMessage() for r in caplog.records if "Scheduled" in r.getMessage()]
    assert line.startswith("Scheduled 2 instance(s) among 2 hosts: refresh ")
    for phase in ("placement", "filters", "weighers", "claim"):
        assert f", {phase} " in line
