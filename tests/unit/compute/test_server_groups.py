"""Server group rules: quotas, the boot hint, the conductor's refresh, the late check."""

import pytest

from novalite import exception
from novalite.compute import server_groups
from novalite.context import RequestContext
from novalite.db.api import instances
from novalite.db.api import server_groups as sg
from novalite.objects.request_spec import InstanceGroup
from tests import builders

CTX = RequestContext(user_id="u1", project_id="p1", roles=["member", "reader"])


def test_group_quota_counts_the_project(db, conf):
    conf.set_override("server_groups", 2, group="quota")
    server_groups.create(CTX, "a", "affinity")
    server_groups.create(CTX, "b", "affinity")
    with pytest.raises(exception.ServerGroupLimitExceeded):
        server_groups.create(CTX, "c", "affinity")
    assert sg.group_count("p1") == 2
    other = RequestContext(user_id="u2", project_id="p2", roles=["member"])
    assert server_groups.create(other, "c", "affinity")["project_id"] == "p2"


def test_only_anti_affinity_takes_rules(db):
    with pytest.raises(exception.Invalid, match="Only anti-affinity policy supports rules."):
        server_groups.create(CTX, "a", "affinity", {"max_server_per_host": 2})
    assert sg.group_count("p1") == 0


@pytest.mark.parametrize("hint", ["nope", "", 7, ["nope"]])
def test_group_hint_must_be_a_uuid(db, hint):
    with pytest.raises(exception.ValidationError, match="Invalid input for field/attribute "
                       "group.*is not valid under any of the given schemas"):
        server_groups.join_requested_group(CTX, {"group": hint}, ["i-1"])


def test_boot_hint_joins_the_group_and_describes_it_for_the_scheduler(db):
    group = server_groups.create(CTX, "g", "anti-affinity", {"max_server_per_host": 2})
    assert server_groups.join_requested_group(CTX, {}, ["i-1"]) is None
    view = server_groups.join_requested_group(CTX, {"group": [group["uuid"]]}, ["i-1", "i-2"])
    assert view == InstanceGroup(uuid=group["uuid"], policy="anti-affinity",
                                 rules={"max_server_per_host": 2}, hosts=[],
                                 members=["i-1", "i-2"])


def test_unknown_or_foreign_group_is_a_bad_request(db):
    group = server_groups.create(CTX, "g", "affinity")
    stranger = RequestContext(user_id="u2", project_id="p2", roles=["member"])
    with pytest.raises(exception.Invalid, match=f"Instance group {group['uuid']} could not "
                       "be found."):
        server_groups.join_requested_group(stranger, {"group": group["uuid"]}, ["i-1"])
    admin = RequestContext(user_id="admin", project_id="admin", is_admin=True)
    assert server_groups.join_requested_group(admin, {"group": group["uuid"]}, ["i-1"])


def test_member_quota_refuses_the_whole_boot(db, conf):
    conf.set_override("server_group_members", 2, group="quota")
    group = server_groups.create(CTX, "g", "affinity")
    with pytest.raises(exception.GroupMemberLimitExceeded):
        server_groups.join_requested_group(CTX, {"group": group["uuid"]}, ["a", "b", "c"])
    assert sg.group_get(group["uuid"])["members"] == []


@pytest.mark.parametrize("policy, missing", [
    ("affinity", "ServerGroupAffinityFilter"),
    ("anti-affinity", "ServerGroupAntiAffinityFilter"),
])
def test_hard_policy_needs_its_filter(conf, policy, missing):
    conf.set_override("enabled_filters", ["ComputeFilter"], group="filter_scheduler")
    with pytest.raises(exception.UnsupportedPolicyException,
                       match=f"ServerGroup policy is not supported: {missing} not configured"):
        server_groups.check_policy_supported(policy)


def test_soft_policy_needs_its_weigher(conf):
    server_groups.check_policy_supported("soft-affinity")  # the built-in set has it
    conf.set_override("weight_classes", [
        "novalite.scheduler.weighers.host_weighers.ServerGroupSoftAffinityWeigher"],
        group="filter_scheduler")
    server_groups.check_policy_supported("soft-affinity")
    with pytest.raises(exception.UnsupportedPolicyException,
                       match="ServerGroupSoftAntiAffinityWeigher not configured"):
        server_groups.check_policy_supported("soft-anti-affinity")


def test_setup_refreshes_members_and_hosts(db):
    group = server_groups.create(CTX, "g", "anti-affinity")
    first = builders.instance()
    instances.instance_create({"uuid": first.uuid, "flavor": builders.flavor(),
                               "host": "h1"})
    sg.group_add_members(group["uuid"], [first.uuid])
    spec = builders.request_spec(instance_group=server_groups.join_requested_group(
        CTX, {"group": group["uuid"]}, ["new"]))
    spec.instance_group.hosts = ["h3"]  # what the request already knew stays
    server_groups.setup_instance_group(spec)
    assert spec.instance_group.members == [first.uuid, "new"]
    assert spec.instance_group.hosts == ["h1", "h3"]
