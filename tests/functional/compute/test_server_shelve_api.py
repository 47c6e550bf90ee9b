"""shelve, shelveOffload and unshelve through real HTTP (fake driver, two hosts): Nova's
states, the shelve image, placement given back when offloaded and claimed again when
unshelved (the audit finding nothing), 2.77 zones and 2.91 hosts, Nova's 400/403/409."""

from __future__ import annotations

import httpx
import pytest

from novalite.cmd import manage_placement
from novalite.context import get_admin_context
from novalite.db import models
from novalite.db.api import instances
from novalite.image import db as images

MV = "X-OpenStack-Nova-API-Version"
ALICE = {"X-Auth-Token": "alice:proj1"}


@pytest.fixture
def placement(cloud):
    return httpx.Client(base_url=f"{cloud.base_url}/placement",
                        headers={"OpenStack-API-Version": "placement 1.39"}, timeout=30)


@pytest.fixture
def server(cloud):
    created = cloud.api.post("/servers", headers=ALICE, json={"server": {
        "name": "parked", "flavorRef": "1", "imageRef": images.DEFAULT_IMAGE_ID}})
    server_id = created.json()["server"]["id"]
    cloud.wait_status(server_id, "ACTIVE")
    return server_id


def _act(cloud, server_id, body, version="2.1", who=ALICE):
    return cloud.api.post(f"/servers/{server_id}/action", json=body,
                          headers={MV: version, **who})


def _allocations(placement, server_id):
    return placement.get(f"/allocations/{server_id}").json()["allocations"]


def _consistent(capsys):
    assert manage_placement.audit(heal=False) == 0, capsys.readouterr().out


def test_shelve_offloads_at_once_then_unshelve_schedules_again(cloud, server, placement,
                                                               capsys):
    assert _act(cloud, server, {"shelve": None}).status_code == 202
    offloaded = cloud.wait_status(server, "SHELVED_OFFLOADED")
    assert (offloaded["OS-EXT-SRV-ATTR:host"], offloaded["OS-EXT-STS:power_state"]) == (
        None, 4)
    image_id = instances.instance_get(server).system_metadata["shelved_image_id"]
    image = cloud.wait(lambda: (i := images.image_get(image_id)).status == "active" and i)
    assert (image.name, image.properties["instance_uuid"]) == ("parked-shelved", server)
    assert _allocations(placement, server) == {}
    _consistent(capsys)

    assert _act(cloud, server, {"unshelve": None}).status_code == 202
    back = cloud.wait_status(server, "ACTIVE")
    assert back["OS-EXT-SRV-ATTR:host"] and _allocations(placement, server)
    assert "shelved_image_id" not in instances.instance_get(server).system_metadata
    assert cloud.wait(lambda: not images.image_get_all(
        models.Image.id == image_id))  # the shelve image is gone
    names = [a["action"] for a in cloud.api.get(
        f"/servers/{server}/os-instance-actions", headers=ALICE).json()["instanceActions"]]
    assert names[:2] == ["unshelve", "shelve"]
    _consistent(capsys)


def test_a_shelved_server_kept_on_its_host_starts_there(cloud, server, conf, placement):
    conf.set_override("shelved_offload_time", -1)
    host = cloud.server(server)["OS-EXT-SRV-ATTR:host"]
    assert _act(cloud, server, {"shelve": None}).status_code == 202
    shelved = cloud.wait_status(server, "SHELVED")
    assert shelved["OS-EXT-SRV-ATTR:host"] == host and _allocations(placement, server)
    refused = _act(cloud, server, {"unshelve": {"availability_zone": "nova"}}, "2.77")
    assert (refused.status_code, refused.json()["conflictingRequest"]["message"]) == (
        409, "Specifying an availability zone or a host when unshelving server "
             f'"{server}" with status "SHELVED" is not supported. The server status must '
             "be SHELVED_OFFLOADED.")
    assert _act(cloud, server, {"shelveOffload": None}).status_code == 403  # admins only
    assert _act(cloud, server, {"unshelve": None}).status_code == 202
    back = cloud.wait_status(server, "ACTIVE")
    assert back["OS-EXT-SRV-ATTR:host"] == host


def test_an_admin_offloads_and_unshelves_to_a_host(cloud, server, conf, placement, capsys):
    conf.set_override("shelved_offload_time", -1)
    assert _act(cloud, server, {"shelve": None}).status_code == 202
    cloud.wait_status(server, "SHELVED")
    assert _act(cloud, server, {"shelveOffload": None}, who={}).status_code == 202
    cloud.wait_status(server, "SHELVED_OFFLOADED")
    assert _allocations(placement, server) == {}
    member = _act(cloud, server, {"unshelve": {"host": "compute2"}}, "2.91")
    assert member.status_code == 403
    missing = _act(cloud, server, {"unshelve": {"host": "compute9"}}, "2.91", who={})
    assert (missing.status_code, missing.json()["badRequest"]["message"]) == (
        400, "Compute host compute9 could not be found.")
    zone = cloud.api.post("/os-aggregates", json={"aggregate": {
        "name": "zone2", "availability_zone": "az2"}}).json()["aggregate"]
    cloud.api.post(f"/os-aggregates/{zone['id']}/action",
                   json={"add_host": {"host": "compute1"}})
    elsewhere = _act(cloud, server, {"unshelve": {"host": "compute2",
                                                  "availability_zone": "az2"}},
                     "2.91", who={})
    assert (elsewhere.status_code, elsewhere.json()["conflictingRequest"]["message"]) == (
        409, 'Host "compute2" is not in the availability zone "az2".')
    assert _act(cloud, server, {"unshelve": {"host": "compute2"}}, "2.91",
                who={}).status_code == 202
    back = cloud.wait_status(server, "ACTIVE")
    assert back["OS-EXT-SRV-ATTR:host"] == "compute2"
    _consistent(capsys)


def test_a_host_that_refuses_leaves_the_server_offloaded_with_the_reason(cloud, server):
    assert _act(cloud, server, {"shelve": None}).status_code == 202
    cloud.wait_status(server, "SHELVED_OFFLOADED")
    unknown = _act(cloud, server, {"unshelve": {"availability_zone": "nowhere"}}, "2.77")
    assert (unknown.status_code, unknown.json()["badRequest"]["message"]) == (
        400, "The requested availability zone is not available")
    for host in ("compute1", "compute2"):
        cloud.compute(host).driver.spawn = _broken_spawn
    assert _act(cloud, server, {"unshelve": None}).status_code == 202
    cloud.settle()
    shown = cloud.wait(lambda: (s := cloud.server(server))["OS-EXT-STS:task_state"] is None
                       and s)
    assert (shown["status"], shown["OS-EXT-SRV-ATTR:host"]) == ("SHELVED_OFFLOADED", None)
    assert instances.instance_get(server).system_metadata["shelved_image_id"]


def _broken_spawn(*args, **kwargs):
    raise RuntimeError("no room for the disk")


def test_refusals_and_delete_of_an_offloaded_server(cloud, server):
    assert _act(cloud, server, {"unshelve": None}).status_code == 409
    assert _act(cloud, server, {"unshelve": {"host": "h"}}, "2.90").status_code == 400
    cloud.api.post(f"/servers/{server}/action", json={"lock": None})
    locked = _act(cloud, server, {"shelve": None})
    assert locked.status_code == 409
    cloud.api.post(f"/servers/{server}/action", json={"unlock": None})
    assert _act(cloud, server, {"shelve": None}).status_code == 202
    cloud.wait_status(server, "SHELVED_OFFLOADED")
    image_id = instances.instance_get(server).system_metadata["shelved_image_id"]
    assert cloud.api.delete(f"/servers/{server}", headers=ALICE).status_code == 204
    cloud.wait_gone(server)
    assert not images.image_get_all(models.Image.id == image_id)


def test_the_periodic_task_offloads_servers_shelved_long_enough(cloud, server, conf):
    conf.set_override("shelved_offload_time", 600)
    assert _act(cloud, server, {"shelve": None}).status_code == 202
    cloud.wait_status(server, "SHELVED")
    host = cloud.server(server)["OS-EXT-SRV-ATTR:host"]
    manager = cloud.compute(host)
    manager._poll_shelved_instances(get_admin_context())
    assert cloud.server(server)["status"] == "SHELVED"  # not yet ten minutes
    remembered = instances.instance_get(server).system_metadata
    instances.instance_update(server, {"system_metadata": {
        **remembered, "shelved_at": "2026-01-01T00:00:00"}})
    manager._poll_shelved_instances(get_admin_context())
    assert cloud.wait_status(server, "SHELVED_OFFLOADED")["OS-EXT-SRV-ATTR:host"] is None
