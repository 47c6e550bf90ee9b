"""A move's message handled again after the conductor that took it died half-way (the
broker redelivers what was not acknowledged): resize, live migration, evacuation and
unshelve each end as if nothing had happened, with one migration and one claim; a
message delivered once more after the move is done changes nothing. Where nothing
delivers it again (the in-process transport), the next conductor's start ends the move
with a fault, the server where it was (through real HTTP, fake driver, two hosts; the
conductor's handlings are called as its RPC server would)."""

from __future__ import annotations

import httpx
import pytest
from sqlalchemy import update

from novalite.cmd import manage_placement
from novalite.conductor import rpcapi as conductor_rpcapi
from novalite.conductor.manager import ComputeTaskManager, ConductorManager
from novalite.db import models, session
from novalite.db.api import actions, migrations

MV = "X-OpenStack-Nova-API-Version"


class Killed(BaseException):
    """The conductor's process ending where it stands: no roll-back, no acknowledgement."""


def _holders(cloud, consumer: str) -> list[str]:
    with httpx.Client(base_url=f"{cloud.base_url}/placement", timeout=30,
                      headers={"OpenStack-API-Version": "placement 1.39"}) as placement:
        names = {rp["uuid"]: rp["name"] for rp in
                 placement.get("/resource_providers").json()["resource_providers"]}
        held = placement.get(f"/allocations/{consumer}").json()["allocations"]
    return sorted(names[rp] for rp in held)


def _act(cloud, server_id: str, body: dict, version: str = "2.30") -> None:
    response = cloud.api.post(f"/servers/{server_id}/action", json=body,
                              headers={MV: version})
    assert response.status_code in (200, 202), response.text


def _evacuate(cloud, server_id: str, source: str) -> None:
    with session.writer() as s:
        s.execute(update(models.Service).where(models.Service.host == source)
                  .values(forced_down=True))
    _act(cloud, server_id, {"evacuate": {}})


def _unshelve(cloud, server_id: str, source: str) -> None:
    _act(cloud, server_id, {"shelve": None})
    cloud.wait_status(server_id, "SHELVED_OFFLOADED")
    _act(cloud, server_id, {"unshelve": None})


MOVES = {  # method: (the request, the status it ends in, the conductor's event)
    "migrate_server": (lambda cloud, server_id, source: _act(
        cloud, server_id, {"resize": {"flavorRef": "2"}}), "VERIFY_RESIZE",
                       "conductor_migrate_server"),
    "live_migrate_instance": (lambda cloud, server_id, source: _act(
        cloud, server_id, {"os-migrateLive": {"host": None, "block_migration": "auto"}}),
                              "ACTIVE", "conductor_live_migrate_instance"),
    "evacuate_instance": (_evacuate, "ACTIVE", "conductor_rebuild_server"),
    "unshelve_instance": (_unshelve, "ACTIVE", "conductor_unshelve_instance"),
}


def _killed_after_its_claim(cloud, monkeypatch, method: str, server_id: str, source: str
                            ) -> tuple[ComputeTaskManager, object, tuple]:
    """The move asked for, taken by a conductor that dies just after the scheduler
    claimed its destination: that conductor, the request's context and arguments."""
    taken = []
    monkeypatch.setattr(conductor_rpcapi.ComputeTaskAPI, method,
                        lambda self, ctx, *args: taken.append((ctx, args)))
    MOVES[method][0](cloud, server_id, source)
    (ctx, args), = taken
    conductor = ComputeTaskManager()
    select = conductor.scheduler.select_destinations

    def claim_then_die(*call_args, **kwargs):
        select(*call_args, **kwargs)
        raise Killed
    conductor.scheduler.select_destinations = claim_then_die  # type: ignore[method-assign]
    with pytest.raises(Killed):
        getattr(conductor, method)(ctx, *args)
    conductor.scheduler.select_destinations = select  # type: ignore[method-assign]
    return conductor, ctx, args


@pytest.mark.parametrize("method", MOVES)
def test_a_move_taken_by_a_conductor_killed_after_its_claim_is_carried_on_once(
        cloud, monkeypatch, capsys, method):
    _, status, event = MOVES[method]
    server_id = cloud.boot("mover")
    source = cloud.wait_status(server_id, "ACTIVE")["OS-EXT-SRV-ATTR:host"]
    conductor, ctx, args = _killed_after_its_claim(cloud, monkeypatch, method, server_id,
                                                   source)
    assert _holders(cloud, server_id)  # the destination claimed for the dead handling

    getattr(conductor, method)(ctx, *args)  # redelivered to its successor
    moved = cloud.wait_status(server_id, status)
    dest = moved["OS-EXT-SRV-ATTR:host"]
    assert moved["OS-EXT-STS:task_state"] is None and dest
    assert _holders(cloud, server_id) == [dest]
    found = migrations.migrations_list({"instance_uuid": server_id})
    assert len(found) == (0 if method == "unshelve_instance" else 1), found
    events = [e for e in actions.action_get_by_request_id(server_id, ctx.request_id)[
        "events"] if e["event"] == event]
    assert [e["result"] for e in events] == ["Success"]
    assert manage_placement.audit(heal=False) == 0, capsys.readouterr().out

    getattr(conductor, method)(ctx, *args)  # once more, after the move: nothing to do
    cloud.settle()
    again = cloud.server(server_id)
    assert (again["status"], again["OS-EXT-SRV-ATTR:host"]) == (status, dest)
    assert len(migrations.migrations_list({"instance_uuid": server_id})) == len(found)
    assert _holders(cloud, server_id) == [dest]


def test_a_move_rolled_back_before_its_acknowledgement_is_not_tried_again(cloud,
                                                                           monkeypatch):
    """No other host is enabled: the first handling ended the resize with its reason;
    the message delivered again does not try it a second time."""
    server_id = cloud.boot("mover")
    source = cloud.wait_status(server_id, "ACTIVE")["OS-EXT-SRV-ATTR:host"]
    with session.writer() as s:
        s.execute(update(models.Service).where(models.Service.host != source)
                  .values(disabled=True))
    taken = []
    monkeypatch.setattr(conductor_rpcapi.ComputeTaskAPI, "migrate_server",
                        lambda self, ctx, *args: taken.append((ctx, args)))
    _act(cloud, server_id, {"resize": {"flavorRef": "2"}})
    (ctx, args), = taken
    conductor = ComputeTaskManager()
    conductor.migrate_server(ctx, *args)
    ended = cloud.wait_status(server_id, "ACTIVE")
    assert ended["OS-EXT-STS:task_state"] is None
    (migration,) = migrations.migrations_list({"instance_uuid": server_id})
    assert migration["status"] == "error"

    conductor.migrate_server(ctx, *args)
    assert migrations.migration_get(migration["uuid"]).status == "error"
    events = actions.action_get_by_request_id(server_id, ctx.request_id)["events"]
    assert [e["result"] for e in events if e["event"] == "conductor_migrate_server"] == [
        "Error"]


@pytest.mark.parametrize("method", MOVES)
def test_the_next_conductor_ends_a_move_nothing_delivers_again(cloud, monkeypatch, capsys,
                                                               method):
    event = MOVES[method][2]
    server_id = cloud.boot("mover")
    source = cloud.wait_status(server_id, "ACTIVE")["OS-EXT-SRV-ATTR:host"]
    _, ctx, _ = _killed_after_its_claim(cloud, monkeypatch, method, server_id, source)
    before = "SHELVED_OFFLOADED" if method == "unshelve_instance" else "ACTIVE"

    ConductorManager("conductor-after").init_host()  # in-process: the message died
    cloud.settle()
    ended = cloud.server(server_id)
    assert (ended["status"], ended["OS-EXT-STS:task_state"]) == (before, None)
    if method != "unshelve_instance":
        assert ended["OS-EXT-SRV-ATTR:host"] == source
        assert _holders(cloud, server_id) == [source]
        (migration,) = migrations.migrations_list({"instance_uuid": server_id})
        assert migration["status"] == "error"
    else:
        assert _holders(cloud, server_id) == []
    assert actions.fault_get_latest([server_id])[server_id]["message"].startswith(
        "The move was interrupted by a restart of its conductor")
    events = actions.action_get_by_request_id(server_id, ctx.request_id)["events"]
    assert [e["result"] for e in events if e["event"] == event] == ["Error"]
    assert manage_placement.audit(heal=False) == 0, capsys.readouterr().out
