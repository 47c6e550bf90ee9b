"""evacuate through real HTTP (fake driver, two hosts): refused while the host's compute
is up, then rebuilt on the other host once it is forced down; the evacuation holding the
failed host's resources until that host comes back and cleans up (the placement audit
finding nothing at each step); 2.95 leaves it SHUTOFF; Nova's 400/403/404."""

from __future__ import annotations

import httpx
import pytest
from sqlalchemy import update

from novalite.cmd import manage_placement
from novalite.context import get_admin_context
from novalite.db import models, session
from novalite.db.api import migrations
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
        "name": "rescued-elsewhere", "flavorRef": "1", "imageRef": images.DEFAULT_IMAGE_ID}})
    server_id = created.json()["server"]["id"]
    cloud.wait_status(server_id, "ACTIVE")
    return server_id


def _evacuate(cloud, server_id, version="2.14", who=None, **body):
    return cloud.api.post(f"/servers/{server_id}/action", json={"evacuate": body},
                          headers={MV: version, **(who or {})})


def _force_down(host, down=True):
    with session.writer() as s:
        s.execute(update(models.Service).where(models.Service.host == host)
                  .values(forced_down=down))


def _holders(placement, consumer):
    names = {rp["uuid"]: rp["name"]
             for rp in placement.get("/resource_providers").json()["resource_providers"]}
    return sorted(names[rp] for rp in
                  placement.get(f"/allocations/{consumer}").json()["allocations"])


def _consistent(capsys):
    assert manage_placement.audit(heal=False) == 0, capsys.readouterr().out


def test_evacuate_then_the_failed_host_cleans_up_when_it_returns(cloud, server, placement,
                                                                 capsys):
    source = cloud.server(server)["OS-EXT-SRV-ATTR:host"]
    up = _evacuate(cloud, server)
    assert (up.status_code, up.json()["badRequest"]["message"]) == (
        400, f"Compute service of {source} is still in use.")
    _force_down(source)
    answered = _evacuate(cloud, server)
    assert (answered.status_code, answered.content) == (200, b"")
    moved = cloud.wait_status(server, "ACTIVE")
    target = moved["OS-EXT-SRV-ATTR:host"]
    assert target not in (None, source)
    (record,) = migrations.migrations_list({"instance_uuid": server})
    assert (record["migration_type"], record["status"]) == ("evacuation", "done")
    assert _holders(placement, server) == [target]
    assert _holders(placement, record["uuid"]) == [source]  # until the source is back
    _consistent(capsys)

    _force_down(source, False)
    manager = cloud.compute(source)
    assert server in manager.driver.list_instances()  # the dead host's leftover guest
    manager._destroy_evacuated_instances(get_admin_context())
    assert server not in manager.driver.list_instances()
    assert _holders(placement, record["uuid"]) == []
    assert migrations.migrations_list({"instance_uuid": server})[0]["status"] == "completed"
    _consistent(capsys)


def test_from_2_95_an_evacuated_server_is_stopped(cloud, server):
    source = cloud.server(server)["OS-EXT-SRV-ATTR:host"]
    other = "compute2" if source == "compute1" else "compute1"
    _force_down(source)
    assert _evacuate(cloud, server, "2.95", host=other).status_code == 200
    moved = cloud.wait_status(server, "SHUTOFF")
    assert (moved["OS-EXT-SRV-ATTR:host"], moved["OS-EXT-STS:power_state"]) == (other, 4)


def test_before_2_14_the_password_is_answered(cloud, server):
    _force_down(cloud.server(server)["OS-EXT-SRV-ATTR:host"])
    shared = _evacuate(cloud, server, "2.13", onSharedStorage=True)
    assert shared.status_code == 400 and "onSharedStorage" in shared.text
    answered = _evacuate(cloud, server, "2.13", onSharedStorage=False, adminPass="pw")
    assert answered.json() == {"adminPass": "pw"}
    cloud.wait_status(server, "ACTIVE")


@pytest.mark.parametrize(("version", "body", "status"), [
    ("2.14", {"host": "compute9"}, 404),
    ("2.13", {}, 400),  # onSharedStorage required
    ("2.29", {"force": True}, 400),  # no host to force to
    ("2.68", {"force": True, "host": "compute1"}, 400),
])
def test_bad_requests(cloud, server, version, body, status):
    _force_down(cloud.server(server)["OS-EXT-SRV-ATTR:host"])
    assert _evacuate(cloud, server, version, **body).status_code == status


def test_admins_only(cloud, server):
    assert _evacuate(cloud, server, who=ALICE).status_code == 403
