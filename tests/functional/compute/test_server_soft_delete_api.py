"""Deferred delete (reclaim_instance_interval) through the HTTP API of the all-in-one: a
deleted server waits in SOFT_DELETED, powered off and holding its host, until it is
restored, force-deleted or reclaimed by its compute; with Nova's states, lists, quota
and texts."""

from __future__ import annotations

import pytest

from novalite.cmd import manage_placement
from novalite.db.api import actions
from tests.functional.test_server_actions_api import ALICE, _act, _boot, _conflict, _events


@pytest.fixture
def cloud(cloud_factory, conf):
    conf.set_override("reclaim_instance_interval", 3600)
    return cloud_factory(hosts=1)


def _soft_deleted(cloud, server_id) -> dict:
    assert cloud.api.delete(f"/servers/{server_id}", headers=ALICE).status_code == 204
    return cloud.wait(lambda: (s := cloud.server(server_id))["status"] == "SOFT_DELETED"
                      and s["OS-EXT-STS:task_state"] is None and s)


def _listed(cloud, query="") -> list[str]:
    return [s["id"] for s in cloud.api.get(f"/servers{query}").json()["servers"]]


def _used(cloud) -> int:
    return cloud.api.get("/limits", headers=ALICE).json()["limits"]["absolute"][
        "totalInstancesUsed"]


def test_a_deleted_server_waits_and_is_restored(cloud, capsys):
    server_id = _boot(cloud)
    server = _soft_deleted(cloud, server_id)
    assert (server["OS-EXT-STS:vm_state"], server["OS-EXT-STS:power_state"]) == (
        "soft-delete", 4)
    assert cloud.wait(_events(server_id, "delete")) == {
        "compute_soft_delete_instance": "Success"}
    assert server_id not in _listed(cloud, "?all_tenants=1")
    assert server_id in _listed(cloud, "?all_tenants=1&deleted=true")
    assert server_id in _listed(cloud, "?all_tenants=1&soft_deleted=true")
    assert _used(cloud) == 0  # a soft-deleted server counts for nothing
    assert manage_placement.audit(heal=False) == 0, capsys.readouterr().out

    assert _act(cloud, server_id, {"restore": None}).status_code == 202
    restored = cloud.wait(lambda: (s := cloud.server(server_id))["status"] == "ACTIVE"
                          and s["OS-EXT-STS:task_state"] is None and s)
    assert restored["OS-EXT-STS:power_state"] == 1
    assert cloud.wait(_events(server_id, "restore")) == {"compute_restore_instance": "Success"}
    assert _used(cloud) == 1


def test_force_delete_ends_the_wait(cloud, capsys):
    server_id = _boot(cloud)
    _soft_deleted(cloud, server_id)
    assert _act(cloud, server_id, {"forceDelete": None}).status_code == 202
    cloud.wait_gone(server_id)
    assert manage_placement.audit(heal=False) == 0, capsys.readouterr().out
    running = _boot(cloud, "running")
    assert _act(cloud, running, {"forceDelete": None}).status_code == 202
    cloud.wait_gone(running)


def test_refusals(cloud):
    server_id = _boot(cloud)
    _conflict(_act(cloud, server_id, {"restore": None}),
              f"Cannot 'restore' instance {server_id} while it is in vm_state active")
    _soft_deleted(cloud, server_id)
    assert cloud.api.put("/os-quota-sets/proj1", json={"quota_set": {"instances": 1}}
                         ).status_code == 200
    other = _boot(cloud, "other")
    over = _act(cloud, server_id, {"restore": None})
    assert over.status_code == 403
    assert over.json()["forbidden"]["message"] == "Restore exceeds quota"
    assert cloud.server(server_id)["status"] == "SOFT_DELETED"
    assert _act(cloud, other, {"lock": None}, headers={}).status_code == 202
    _conflict(_act(cloud, other, {"forceDelete": None}), f"Instance {other} is locked")
    recorded = [a["action"] for a in actions.actions_get(server_id)]
    assert recorded == ["create", "delete"]


def test_the_compute_reclaims_after_the_interval(cloud_factory, conf, capsys):
    conf.set_override("reclaim_instance_interval", 1)
    cloud = cloud_factory(hosts=1)
    server_id = _boot(cloud)
    assert cloud.api.delete(f"/servers/{server_id}", headers=ALICE).status_code == 204
    cloud.wait(lambda: cloud.api.get(f"/servers/{server_id}").status_code == 404)
    assert manage_placement.audit(heal=False) == 0, capsys.readouterr().out
