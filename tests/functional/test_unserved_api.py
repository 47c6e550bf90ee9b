"""What novalite does not do is said, not ignored: Nova routes it does not serve answer 501
naming the API (410 / 404 where Nova itself answers so), and body fields or list
parameters it cannot honour are a 400 naming them."""

from __future__ import annotations

import logging

import pytest

from novalite.api.compute import server_actions
from novalite.image import db as images

IMAGE = images.DEFAULT_IMAGE_ID


def test_a_nova_route_novalite_lacks_is_501_naming_the_api_and_logged(cloud, caplog):
    with caplog.at_level(logging.WARNING, logger="novalite.api"):
        response = cloud.api.get("/os-baremetal-nodes")
    assert response.status_code == 501
    assert response.json() == {"notImplemented": {
        "code": 501,
        "message": "The baremetal nodes (proxy) API is not implemented by novalite."}}
    assert "/os-baremetal-nodes" in caplog.text


def test_removed_and_capped_apis_answer_as_nova(cloud):
    gone = cloud.api.get("/os-cells")
    assert gone.status_code == 410
    assert gone.json()["computeFault"]["code"] == 410
    capped = cloud.api.get("/os-baremetal-nodes",
                           headers={"OpenStack-API-Version": "compute 2.36"})
    assert capped.status_code == 404
    assert cloud.api.get("/no-such-thing").status_code == 404


@pytest.mark.parametrize(("bdm", "field"), [
    ({"source_type": "blank", "destination_type": "local", "volume_size": 1},
     "source_type 'blank'"),
    ({"source_type": "blank", "destination_type": "volume", "volume_size": 1,
      "guest_format": "swap"}, "guest_format"),
])
def test_local_disks_other_than_the_image_are_refused_by_name(cloud, bdm, field):
    body = {"server": {"name": "vm", "flavorRef": "1", "imageRef": IMAGE,
                       "block_device_mapping_v2": [bdm]}}
    response = cloud.api.post("/servers", json=body)
    assert response.status_code == 400
    assert f"block_device_mapping_v2 {field}" in response.json()["badRequest"]["message"]


def test_list_parameters_not_honoured_are_refused_by_name(cloud):
    response = cloud.api.get("/servers/detail", params={"colour": "red", "name": "x"})
    assert response.status_code == 400
    assert "colour" in response.json()["badRequest"]["message"]


# Nova's server actions (POST /servers/{id}/action; nova/api/openstack/compute/routes.py).
NOVA_SERVER_ACTIONS = {
    "os-start", "os-stop", "reboot", "pause", "unpause", "suspend", "resume", "lock",
    "unlock", "trigger_crash_dump", "rebuild", "resize", "confirmResize", "revertResize",
    "migrate", "os-migrateLive", "evacuate", "shelve", "shelveOffload", "unshelve",
    "createImage", "createBackup", "forceDelete", "restore", "rescue", "unrescue",
    "os-resetState", "injectNetworkInfo", "changePassword", "os-getConsoleOutput",
    "os-getVNCConsole", "os-getSPICEConsole", "os-getSerialConsole", "os-getRDPConsole",
    "addSecurityGroup", "removeSecurityGroup", "addFloatingIp", "removeFloatingIp",
    "addFixedIp", "removeFixedIp",
}


def test_every_nova_server_action_is_served_and_a_made_up_one_is_400(cloud):
    assert NOVA_SERVER_ACTIONS - set(server_actions.ACTIONS) == set()
    server_id = cloud.boot()
    made_up = cloud.api.post(f"/servers/{server_id}/action", json={"fly": None})
    assert made_up.status_code == 400
    assert made_up.json()["badRequest"]["message"] == "There is no such action: fly"
