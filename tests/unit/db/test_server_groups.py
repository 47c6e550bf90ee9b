"""Server group queries: scoping, members within a quota, and where members are placed."""

import contextlib
import datetime
import threading

import pytest

from novalite import exception
from novalite.db.api import instances
from novalite.db.api import server_groups as sg
from tests import builders


def _group(policy="anti-affinity", project="p1", **kw):
    return sg.group_create("g", project, "u1", policy, **kw)


def _instance(host=None, scheduled_at=None):
    inst = builders.instance()
    instances.instance_create({"uuid": inst.uuid, "project_id": "p1", "user_id": "u1",
                               "flavor": builders.flavor(), "host": host,
                               "scheduled_at": scheduled_at})
    return inst.uuid


def test_create_read_back_list_and_delete(db):
    group = _group(rules={"max_server_per_host": 2})
    got = sg.group_get(group["uuid"])
    assert (got["name"], got["policy"], got["rules"], got["members"]) == \
        ("g", "anti-affinity", {"max_server_per_host": 2}, [])
    other = _group("affinity", project="p2")
    assert [g["uuid"] for g in sg.group_get_all()] == [group["uuid"], other["uuid"]]
    assert [g["uuid"] for g in sg.group_get_all("p2")] == [other["uuid"]]
    assert sg.group_count("p1") == 1
    sg.group_add_members(group["uuid"], ["i-1"])
    sg.group_delete(group["uuid"])
    assert sg.group_count("p1") == 0
    assert sg.group_uuids_of_instance("i-1") == []


def test_another_projects_group_is_not_found(db):
    group = _group()
    with pytest.raises(exception.InstanceGroupNotFound,
                       match=f"Instance group {group['uuid']} could not be found."):
        sg.group_get(group["uuid"], project_id="p2")
    with pytest.raises(exception.InstanceGroupNotFound):
        sg.group_delete(group["uuid"], project_id="p2")
    assert sg.group_get(group["uuid"], project_id="p1")["uuid"] == group["uuid"]


def test_members_join_once_and_within_the_limit(db):
    group = _group()
    assert sg.group_add_members(group["uuid"], ["a", "b", "a"], max_members=3) == ["a", "b"]
    assert sg.group_add_members(group["uuid"], ["b", "c"], max_members=3) == ["a", "b", "c"]
    with pytest.raises(exception.GroupMemberLimitExceeded,
                       match="Quota exceeded, too many servers in group"):
        sg.group_add_members(group["uuid"], ["d"], max_members=3)
    assert sg.group_add_members(group["uuid"], ["d"], max_members=-1)[-1] == "d"
    assert sg.group_uuids_of_instance("d") == [group["uuid"]]
    with pytest.raises(exception.InstanceGroupNotFound):
        sg.group_add_members("no-such-group", ["e"])


def test_concurrent_joins_never_pass_the_limit(db):
    group = _group()

    def join(name):
        with contextlib.suppress(exception.GroupMemberLimitExceeded):
            sg.group_add_members(group["uuid"], [name], max_members=5)

    threads = [threading.Thread(target=join, args=(f"i-{n}",)) for n in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(sg.group_get(group["uuid"])["members"]) == 5


def test_deleting_an_instance_takes_it_out_of_its_group(db):
    group = _group()
    kept, gone = _instance("h1"), _instance("h2")
    sg.group_add_members(group["uuid"], [kept, gone])
    instances.instance_destroy(gone)
    assert sg.group_get(group["uuid"])["members"] == [kept]


def test_scheduling_view_has_the_hosts_of_placed_members(db):
    group = _group()
    members = [_instance("h1"), _instance("h1"), _instance(None), _instance("h2")]
    sg.group_add_members(group["uuid"], members)
    view = sg.group_scheduling_view(group["uuid"])
    assert view == {"uuid": group["uuid"], "policy": "anti-affinity", "rules": {},
                    "members": members, "hosts": ["h1", "h2"]}
    assert sg.group_scheduling_view("no-such-group") is None


def test_placed_before_orders_members_by_when_they_were_placed(db):
    group = _group()
    t0 = datetime.datetime(2030, 1, 1)
    early = _instance("h1", t0)
    late = _instance("h1", t0 + datetime.timedelta(seconds=5))
    tie = _instance("h2", t0 + datetime.timedelta(seconds=5))  # same time: the id decides
    unplaced = _instance(None)
    sg.group_add_members(group["uuid"], [early, late, tie, unplaced])
    assert sg.group_placed_before(group["uuid"], early)["hosts"] == []
    assert sg.group_placed_before(group["uuid"], late)["hosts"] == ["h1"]
    assert sorted(sg.group_placed_before(group["uuid"], tie)["hosts"]) == ["h1", "h1"]
    assert sorted(sg.group_placed_before(group["uuid"], unplaced)["hosts"]) == \
        ["h1", "h1", "h2"]
    assert sg.group_placed_before("no-such-group", early) is None
