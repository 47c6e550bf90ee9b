"""The conductor's database calls that are acknowledged late are safe to run twice: a
redelivered one finds its work done and answers as the first would have."""

import pytest

from novalite import exception, rpc
from novalite.conductor import rpcapi as conductor_rpcapi
from novalite.conductor.manager import ComputeTaskManager, ConductorManager
from novalite.context import RequestContext
from novalite.db.api import actions, compute_nodes, instances
from novalite.objects import states
from tests import builders

CTX = RequestContext(request_id="req-1", user_id="u1", project_id="p1")
BUILD = "compute_build_and_run_instance"


@pytest.fixture
def manager(db):
    return ConductorManager("c1")


def _building() -> str:
    """An instance in BUILD on h1, waiting to be taken, with its create action."""
    inst = builders.instance()
    instances.instance_create({"uuid": inst.uuid, "display_name": "vm", "project_id": "p1",
                               "user_id": "u1", "flavor": builders.flavor(),
                               "vm_state": states.BUILDING, "host": "h1",
                               "task_state": states.SCHEDULING})
    actions.action_start(CTX, inst.uuid, "create")
    return inst.uuid


@pytest.fixture
def uuid(db):
    return _building()


def test_a_redelivered_guarded_update_already_made_answers_with_the_instance(
        manager, uuid, monkeypatch):
    take = {"values": {"task_state": None}, "expected_task_state": [states.SCHEDULING],
            "expected_host": "h1"}
    manager.instance_update(CTX, uuid, **take)
    with pytest.raises(exception.UnexpectedTaskStateError):  # a plain second: refused
        manager.instance_update(CTX, uuid, **take)
    monkeypatch.setattr(rpc, "redelivered", lambda: True)
    assert manager.instance_update(CTX, uuid, **take).task_state is None
    with pytest.raises(exception.UnexpectedTaskStateError):  # another change: refused
        manager.instance_update(CTX, uuid, {"task_state": states.SPAWNING},
                                expected_task_state=[states.SCHEDULING])


def test_a_redelivered_event_start_or_finish_is_recorded_once(manager, uuid, monkeypatch):
    monkeypatch.setattr(rpc, "redelivered", lambda: True)
    for _ in range(2):
        manager.action_event_start(CTX, uuid, BUILD, "h1")
    for _ in range(2):
        manager.action_event_finish(CTX, uuid, BUILD, "Success")
    events = actions.actions_get(uuid)[0]["events"]
    assert [(e["event"], e["result"]) for e in events] == [(BUILD, "Success")]


def _events(uuid: str) -> list[tuple]:
    return [(e["event"], e["host"], e["result"])
            for e in actions.actions_get(uuid)[0]["events"]]


def test_a_redelivered_update_that_started_an_event_answers_without_a_second(
        manager, uuid, monkeypatch):
    take = {"values": {"task_state": None}, "expected_task_state": [states.SCHEDULING],
            "expected_host": "h1", "starts_event": BUILD}
    monkeypatch.setattr(rpc, "redelivered", lambda: True)
    for _ in range(2):
        assert manager.instance_update(CTX, uuid, **take).task_state is None
    assert _events(uuid) == [(BUILD, "h1", None)]


def test_an_update_failing_its_guard_starts_no_event(manager, uuid):
    with pytest.raises(exception.UnexpectedTaskStateError):
        manager.instance_update(CTX, uuid, {"task_state": None},
                                expected_task_state=[states.SPAWNING], starts_event=BUILD)
    assert _events(uuid) == []


def test_a_build_starts_and_ends_its_event_with_its_updates_or_apart_before_1_11(
        db, conf, monkeypatch):
    from novalite.service.base import DBServiceRecords, Service

    conductor = Service("novalite-conductor", conductor_rpcapi.TOPIC, ConductorManager("c1"),
                        DBServiceRecords(), "c1")
    conductor.start()
    calls: list[str] = []
    call = rpc.RPCClient.call
    monkeypatch.setattr(rpc.RPCClient, "call", lambda self, ctx, method, **kw: (
        calls.append(method), call(self, ctx, method, **kw))[1])
    try:
        for cap, sent in ((None, ["instance_update"] * 3),
                          ("1.10", ["instance_update", "action_event_start",
                                    "instance_update", "instance_update",
                                    "action_event_finish"])):
            conf.set_override("conductor", cap, group="upgrade_levels")
            api, uuid = conductor_rpcapi.ConductorAPI(), _building()
            calls.clear()
            api.instance_update(CTX, uuid, {"task_state": None}, [states.SCHEDULING],
                                expected_host="h1", starts_event=BUILD)
            assert _events(uuid) == [(BUILD, "h1", None)]
            api.instance_update(CTX, uuid, {"task_state": states.SPAWNING}, [None],
                                expected_host="h1")
            api.instance_update(CTX, uuid, {"vm_state": states.ACTIVE, "task_state": None},
                                [states.SPAWNING], expected_host="h1", ends_event=BUILD)
            assert _events(uuid) == [(BUILD, "h1", "Success")]
            assert calls == sent, cap
    finally:
        conductor.stop()


def test_the_builds_and_moves_and_the_builds_calls_are_acked_late():
    late = {name for cls in (ConductorManager, ComputeTaskManager) for name in dir(cls)
            if getattr(getattr(cls, name), "ack_when_done", False)}
    assert {"schedule_and_build_instances", "build_instances", "migrate_server",
            "live_migrate_instance", "evacuate_instance", "unshelve_instance",
            "instance_update", "action_event_start", "action_event_finish",
            "compute_node_save"} <= late
    assert not late & {"reschedule_move", "instance_destroy", "migration_update",
                       "action_start"}


def test_the_calls_sent_again_after_a_lost_reply_are_the_ones_the_conductor_may_rerun():
    late = {name for name in dir(ConductorManager)
            if getattr(getattr(ConductorManager, name), "ack_when_done", False)}
    assert late == conductor_rpcapi.IDEMPOTENT


def test_services_beat_in_one_call_or_one_each_to_a_conductor_before_1_9(db, conf):
    from novalite.db.api import services
    from novalite.service.base import DBServiceRecords, Service

    conductor = Service("novalite-conductor", conductor_rpcapi.TOPIC, ConductorManager("c1"),
                        DBServiceRecords(), "c1")
    conductor.start()
    try:
        ids = [services.service_get_or_create(f"h{i}", "novalite-compute", "compute").id
               for i in range(3)]
        services.service_destroy(ids[1])
        assert conductor_rpcapi.ConductorAPI().service_heartbeat(CTX, ids) == [ids[1]]
        conf.set_override("conductor", "1.8", group="upgrade_levels")
        assert conductor_rpcapi.ConductorAPI().service_heartbeat(CTX, ids) == [ids[1]]
    finally:
        conductor.stop()
    assert {s.host: s.report_count for s in services.service_get_all("novalite-compute")} \
        == {"h0": 2, "h2": 2}


def test_a_process_registers_and_reads_many_hosts_in_one_call_each_or_one_per_host_before_1_10(
        db, conf, monkeypatch):
    from novalite.db.api import migrations
    from novalite.objects.migration import Migration
    from novalite.service.base import DBServiceRecords, Service

    conductor = Service("novalite-conductor", conductor_rpcapi.TOPIC, ConductorManager("c1"),
                        DBServiceRecords(), "c1")
    conductor.start()
    placed = builders.instance(host="h1")
    instances.instance_create({"uuid": placed.uuid, "display_name": "vm", "project_id": "p1",
                               "user_id": "u1", "flavor": builders.flavor(),
                               "vm_state": states.ACTIVE, "host": "h1"})
    move = migrations.migration_create(Migration(
        uuid="m-1", instance_uuid=placed.uuid, migration_type="resize",
        status="migrating", source_compute="h1", dest_compute="h2"))
    hosts = ["h1", "h2", "h3"]
    calls: list[str] = []
    call = rpc.RPCClient.call
    monkeypatch.setattr(rpc.RPCClient, "call", lambda self, ctx, method, **kw: (
        calls.append(method), call(self, ctx, method, **kw))[1])
    try:
        answers = []
        for cap in (None, "1.9"):
            conf.set_override("conductor", cap, group="upgrade_levels")
            api = conductor_rpcapi.ConductorAPI()
            calls.clear()
            records = api.service_get_or_create_many(CTX, hosts, "novalite-compute", "compute")
            held = api.instance_get_all_by_hosts(CTX, hosts)
            moves = api.migration_get_in_progress_by_hosts(CTX, hosts)
            api.compute_node_save_many(CTX, [(builders.node(h), r.id)
                                             for h, r in zip(hosts, records, strict=True)])
            answers.append(([r.id for r in records], {h: [i.uuid for i in found]
                                                      for h, found in held.items()},
                            {h: [m.uuid for m in found] for h, found in moves.items()}))
            assert len(calls) == (4 if cap is None else 12)
            assert sorted(n.host for n in compute_nodes.compute_node_get_all()) == hosts
    finally:
        conductor.stop()
    assert answers[0] == answers[1]
    assert answers[0][1:] == ({"h1": [placed.uuid]}, {"h1": [move.uuid], "h2": [move.uuid]})
