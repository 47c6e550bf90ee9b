"""An API killed between saving servers and sending their builds on: the API that starts
next on its host sends them (the build outbox), so they are built, not left in BUILD."""

from __future__ import annotations

from novalite.compute.api_manager import ApiManager
from novalite.conductor.rpcapi import ComputeTaskAPI
from novalite.conf import CONF
from novalite.db.api import actions, build_outbox
from novalite.timeutils import utcnow


def test_builds_a_stopped_api_saved_but_never_sent_are_built_when_it_starts(
        cloud, monkeypatch):
    monkeypatch.setattr(ComputeTaskAPI, "schedule_and_build_instances",
                        lambda *args, **kwargs: None)  # the process died before the send
    first = cloud.boot("lost", min_count=2, max_count=2)
    alone = cloud.boot("alone")
    monkeypatch.undo()
    assert cloud.server(first)["status"] == "BUILD"
    assert sorted(map(len, build_outbox.unsent(CONF.host, utcnow()))) == [1, 2]

    ApiManager(CONF.host).init_host()

    for server in cloud.api.get("/servers", params={"name": "lost|alone"}).json()["servers"]:
        cloud.wait_status(server["id"], "ACTIVE")
    events = [e["event"] for e in actions.actions_get(alone)[0]["events"]]
    assert "conductor_schedule_and_build_instances" in events  # under the request's action
    assert build_outbox.unsent(CONF.host, utcnow()) == []


def test_a_build_taken_by_a_conductor_or_withdrawn_is_not_sent_again(cloud):
    taken = cloud.boot("taken")
    cloud.wait_status(taken, "ACTIVE")
    withdrawn = cloud.boot("withdrawn")
    assert cloud.api.delete(f"/servers/{withdrawn}").status_code == 204
    cloud.wait_gone(withdrawn)
    assert build_outbox.unsent(CONF.host, utcnow()) == []


def test_builds_the_all_in_ones_conductor_took_and_died_with_are_built_when_it_starts(
        cloud, monkeypatch):
    """In-process, a message dies with the process: builds a conductor took (out of the
    outbox) but handed to no compute have nobody else to carry them on."""
    monkeypatch.setattr(ComputeTaskAPI, "schedule_and_build_instances",
                        lambda self, ctx, spec, uuids, **kwargs: build_outbox.taken(uuids))
    first = cloud.boot("taken", min_count=2, max_count=2)
    monkeypatch.undo()
    assert cloud.server(first)["status"] == "BUILD"
    assert build_outbox.unsent(CONF.host, utcnow()) == []
    assert list(map(len, build_outbox.in_flight(utcnow()))) == [2]
    cloud.wait_status(cloud.boot("after"), "ACTIVE")  # built: not in flight

    ApiManager(CONF.host).init_host()

    for server in cloud.api.get("/servers", params={"name": "taken"}).json()["servers"]:
        cloud.wait_status(server["id"], "ACTIVE")
    assert build_outbox.in_flight(utcnow()) == []
