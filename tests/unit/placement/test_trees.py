"""Candidates spanning provider trees and sharing providers: the unsuffixed group spread
over a tree, granular groups, group_policy, same_subtree, root_required, in_tree."""

from __future__ import annotations

import pytest

from novalite.placement.candidates.request import Options
from tests.unit.placement.helpers import candidates, named, provs


@pytest.fixture
def numa(topo):
    """cn1 with two NUMA nodes, each with a PF; cn2 the same shape, in aggregate A."""
    for cn in ("cn1", "cn2"):
        topo.provider(cn, inventory={"DISK_GB": 100}, aggs=[topo.agg("A")] * (cn == "cn2"),
                      traits=["CUSTOM_GOLD"] * (cn == "cn1"))
        for n, physnet in ((0, "A"), (1, "B")):
            topo.provider(f"{cn}-numa{n}", parent=cn, traits=["HW_NUMA_ROOT"],
                          inventory={"VCPU": 4, "MEMORY_MB": 2048})
            topo.provider(f"{cn}-pf{n}", parent=f"{cn}-numa{n}",
                          inventory={"SRIOV_NET_VF": 4}, traits=[f"CUSTOM_PHYSNET_{physnet}"])
    return topo


def mappings(topo, body):
    return sorted(sorted((s, sorted(topo.names[u] for u in us))
                         for s, us in r["mappings"].items())
                  for r in body["allocation_requests"])


def test_unsuffixed_group_spreads_over_the_tree(numa):
    q = "resources=VCPU:2,MEMORY_MB:512,DISK_GB:10&in_tree=" + numa.uuids["cn1"]
    assert provs(numa, q) == [
        ["cn1", "cn1-numa0"], ["cn1", "cn1-numa0", "cn1-numa1"],
        ["cn1", "cn1-numa0", "cn1-numa1"], ["cn1", "cn1-numa1"]]


def test_before_1_29_one_provider_per_tree(numa):
    numa.provider("flat", inventory={"VCPU": 8, "MEMORY_MB": 4096, "DISK_GB": 100})
    q = "resources=VCPU:2,MEMORY_MB:512,DISK_GB:10"
    body = candidates(numa, q, (1, 28))
    reqs, sums = named(numa, body)
    assert [sorted(p for p, _ in r) for r in reqs] == [["flat"]]
    assert set(sums) == {"flat"}
    assert len(candidates(numa, q, (1, 29))["allocation_requests"]) == 9


def test_summaries_cover_whole_trees(numa):
    body = candidates(numa, "resources=SRIOV_NET_VF:1&in_tree=" + numa.uuids["cn2"])
    _, sums = named(numa, body)
    assert set(sums) == {"cn2", "cn2-numa0", "cn2-numa1", "cn2-pf0", "cn2-pf1"}
    assert sums["cn2-pf0"]["parent_provider_uuid"] == numa.uuids["cn2-numa0"]
    assert sums["cn2-pf0"]["root_provider_uuid"] == numa.uuids["cn2"]
    assert sums["cn2"]["resources"] == {"DISK_GB": {"capacity": 100, "used": 0}}


def test_traits_are_met_by_the_chosen_providers_together(numa):
    q = "resources=VCPU:1,SRIOV_NET_VF:1&in_tree=" + numa.uuids["cn1"]
    assert provs(numa, q + "&required=CUSTOM_PHYSNET_A") == [
        ["cn1-numa0", "cn1-pf0"], ["cn1-numa1", "cn1-pf0"]]
    assert provs(numa, q + "&required=!CUSTOM_PHYSNET_A") == [
        ["cn1-numa0", "cn1-pf1"], ["cn1-numa1", "cn1-pf1"]]


def test_member_of_matches_a_provider_or_its_root(numa):
    assert provs(numa, "resources=SRIOV_NET_VF:1&member_of=" + numa.agg("A")) == [
        ["cn2-pf0"], ["cn2-pf1"]]
    assert provs(numa, "resources=SRIOV_NET_VF:1&member_of=!" + numa.agg("A")) == [
        ["cn1-pf0"], ["cn1-pf1"]]


def test_root_required_filters_by_the_root_only(numa):
    assert provs(numa, "resources=SRIOV_NET_VF:1&root_required=CUSTOM_GOLD") == [
        ["cn1-pf0"], ["cn1-pf1"]]
    assert provs(numa, "resources1=SRIOV_NET_VF:1&root_required=!CUSTOM_GOLD") == [
        ["cn2-pf0"], ["cn2-pf1"]]
    assert provs(numa, "resources=SRIOV_NET_VF:1&root_required=HW_NUMA_ROOT") == []


def test_granular_groups_each_land_on_one_provider(numa):
    q = ("resources1=VCPU:2,MEMORY_MB:512&resources2=SRIOV_NET_VF:1&group_policy=none"
         "&in_tree1=" + numa.uuids["cn1"])
    assert provs(numa, q) == [
        ["cn1-numa0", "cn1-pf0"], ["cn1-numa0", "cn1-pf1"],
        ["cn1-numa1", "cn1-pf0"], ["cn1-numa1", "cn1-pf1"]]
    assert provs(numa, q + "&required2=CUSTOM_PHYSNET_B") == [
        ["cn1-numa0", "cn1-pf1"], ["cn1-numa1", "cn1-pf1"]]


def test_group_policy_isolate_and_capacity_of_the_sum(numa):
    tree = "&in_tree1=" + numa.uuids["cn1"] + "&in_tree2=" + numa.uuids["cn1"]
    both = "resources1=SRIOV_NET_VF:1&resources2=SRIOV_NET_VF:1" + tree
    body = candidates(numa, both + "&group_policy=isolate")
    assert mappings(numa, body) == [
        [("1", ["cn1-pf0"]), ("2", ["cn1-pf1"])], [("1", ["cn1-pf1"]), ("2", ["cn1-pf0"])]]
    body = candidates(numa, both + "&group_policy=none")
    assert len(body["allocation_requests"]) == 4
    assert {"SRIOV_NET_VF": 2} in [a["resources"] for r in body["allocation_requests"]
                                   for a in r["allocations"].values()]
    big = "resources1=SRIOV_NET_VF:3&resources2=SRIOV_NET_VF:3&group_policy=none" + tree
    assert provs(numa, big) == [["cn1-pf0", "cn1-pf1"], ["cn1-pf0", "cn1-pf1"]]


def test_same_subtree_with_a_resourceless_group(numa):
    q = ("required_NUMA=HW_NUMA_ROOT&resources_CPU=VCPU:1&resources_VF=SRIOV_NET_VF:1"
         "&same_subtree=_NUMA,_CPU,_VF&group_policy=none&root_required=CUSTOM_GOLD")
    body = candidates(numa, q)
    assert mappings(numa, body) == [
        [("_CPU", ["cn1-numa0"]), ("_NUMA", ["cn1-numa0"]), ("_VF", ["cn1-pf0"])],
        [("_CPU", ["cn1-numa1"]), ("_NUMA", ["cn1-numa1"]), ("_VF", ["cn1-pf1"])]]


@pytest.fixture
def shared(topo):
    a = topo.agg("A")
    topo.provider("cn1", inventory={"VCPU": 8}, aggs=[a])
    topo.provider("cn2", inventory={"VCPU": 8, "DISK_GB": 100}, aggs=[a])
    topo.provider("cn3", inventory={"VCPU": 8})
    topo.provider("ss", inventory={"DISK_GB": 1000}, aggs=[a],
                  traits=["MISC_SHARES_VIA_AGGREGATE"])
    return topo


def test_sharing_provider_serves_its_aggregate(shared):
    assert provs(shared, "resources=VCPU:1,DISK_GB:10") == [
        ["cn1", "ss"], ["cn2"], ["cn2", "ss"]]
    assert provs(shared, "resources=VCPU:1,DISK_GB:10", (1, 28)) == [
        ["cn1", "ss"], ["cn2"], ["cn2", "ss"]]
    assert provs(shared, "resources=DISK_GB:10") == [["cn2"], ["ss"]]


def test_sharing_provider_with_granular_groups(shared):
    q = "resources1=VCPU:1&resources2=DISK_GB:10&group_policy=none"
    assert provs(shared, q) == [["cn1", "ss"], ["cn2"], ["cn2", "ss"]]
    assert provs(shared, q.replace("none", "isolate")) == [["cn1", "ss"], ["cn2", "ss"]]


@pytest.mark.parametrize("strategy, expected", [
    ("depth-first", [["t1-pf0"], ["t1-pf1"]]),
    ("breadth-first", [["t1-pf0"], ["t2-pf0"]]),
])
def test_generation_strategy_under_a_cap(topo, strategy, expected):
    for t in ("t1", "t2"):
        topo.provider(t)
        for n in range(2):
            topo.provider(f"{t}-pf{n}", parent=t, inventory={"SRIOV_NET_VF": 1})
    opts = {"max_candidates": 2, "strategy": strategy}
    assert provs(topo, "resources=SRIOV_NET_VF:1", **opts) == expected


def test_randomize_shuffles_general_results(numa):
    q = "resources=SRIOV_NET_VF:1"
    orders = {tuple(tuple(r["allocations"]) for r in candidates(
        numa, q, options=Options(randomize=True))["allocation_requests"]) for _ in range(10)}
    assert len(orders) > 1
