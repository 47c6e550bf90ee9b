"""/servers/{id}/shares (2.97) through real HTTP, against tempest's schemas: a cloud
without Manila answers as Nova's would, every check of an attach in Nova's order with its
status and text, and the share mappings the API reads are the stored ones."""

from __future__ import annotations

import uuid

import httpx
import pytest

from novalite.compute import shares_api
from novalite.db import models, session
from novalite.db.api import compute_nodes, share_mappings
from tests.functional.tempest_schemas import check
from tests.functional.test_server_actions_api import ALICE, BOB, CAROL_READER, _act, _boot

MV = "X-OpenStack-Nova-API-Version"
AT = {MV: "2.97"}
SHARE = "e8debdc0-447a-4376-a10a-4cd9122d7986"


@pytest.fixture
def cloud(cloud_factory):
    return cloud_factory(hosts=1)


def _shares(server_id: str, share_id: str | None = None) -> str:
    return f"/servers/{server_id}/shares" + (f"/{share_id}" if share_id else "")


def _stopped(cloud) -> str:
    server_id = _boot(cloud)
    assert _act(cloud, server_id, {"os-stop": None}).status_code == 202
    cloud.wait_status(server_id, "SHUTOFF")
    return server_id


def _attach(cloud, server_id, body=None, who=ALICE):
    body = {"share": {"share_id": SHARE}} if body is None else body
    return cloud.api.post(_shares(server_id), json=body, headers={**who, **AT})


def _record(server_id: str, share_id: str = SHARE) -> None:
    """A mapping as Nova records an attached share (novalite itself never can)."""
    with session.writer() as s:
        s.add(models.ShareMapping(
            uuid=str(uuid.uuid4()), instance_uuid=server_id, share_id=share_id,
            status="inactive", tag="data", export_location="10.0.0.50:/mnt/foo",
            share_proto="NFS"))


def _fault(response, code: int) -> str:
    assert response.status_code == code, response.text
    return next(iter(response.json().values()))["message"]


def _virtio_fs_host(cloud, traits: list[str]) -> None:
    """An operator's traits on the compute's provider, as a virtio-fs host would have."""
    node = compute_nodes.compute_node_get_all()[0]
    placement = httpx.Client(base_url=f"{cloud.base_url}/placement", timeout=30,
                             headers={"OpenStack-API-Version": "placement 1.6"})
    path = f"/resource_providers/{node.uuid}/traits"
    held = placement.get(path).json()
    body = {"traits": held["traits"] + traits,
            "resource_provider_generation": held["resource_provider_generation"]}
    assert placement.put(path, json=body).status_code == 200


def test_the_routes_begin_at_2_97(cloud):
    server_id = _boot(cloud)
    before = {MV: "2.96", **ALICE}
    for response in (cloud.api.get(_shares(server_id), headers=before),
                     cloud.api.post(_shares(server_id), json={}, headers=before),
                     cloud.api.get(_shares(server_id, SHARE), headers=before),
                     cloud.api.delete(_shares(server_id, SHARE), headers=before)):
        assert _fault(response, 404) == "The resource could not be found."


def test_a_server_has_no_shares_and_an_unknown_one_is_novas_404(cloud):
    server_id = _boot(cloud)
    listed = cloud.api.get(_shares(server_id), headers={**CAROL_READER, **AT})
    assert check(listed, "v2_97", "servers", "list_share_attachments") == {"shares": []}
    shown = cloud.api.get(_shares(server_id, SHARE), headers={**ALICE, **AT})
    assert _fault(shown, 404) == f"Share {SHARE} could not be found."
    odd = cloud.api.get(_shares(server_id), params={"all": "1"}, headers={**ALICE, **AT})
    assert _fault(odd, 400) == "Additional properties are not allowed ('all' was unexpected)"


def test_another_projects_server_or_an_unknown_one_is_404(cloud):
    server_id = _boot(cloud)
    for path in (_shares(server_id), _shares(server_id, SHARE)):
        assert cloud.api.get(path, headers={**BOB, **AT}).status_code == 404
    assert cloud.api.delete(_shares(server_id, SHARE), headers={**BOB, **AT}).status_code == 404
    assert _attach(cloud, server_id, who=BOB).status_code == 404
    missing = uuid.uuid4()
    assert _fault(cloud.api.get(_shares(str(missing)), headers=AT), 404) == (
        f"Instance {missing} could not be found.")


def test_a_reader_may_look_but_not_attach_or_detach(cloud):
    server_id = _stopped(cloud)
    reader = {**CAROL_READER, **AT}
    assert _fault(_attach(cloud, server_id, who=CAROL_READER), 403) == (
        "Policy doesn't allow os_compute_api:os-server-shares:create to be performed.")
    assert _fault(cloud.api.delete(_shares(server_id, SHARE), headers=reader), 403) == (
        "Policy doesn't allow os_compute_api:os-server-shares:delete to be performed.")


def test_a_stored_share_is_listed_shown_and_detached(cloud):
    server_id = _stopped(cloud)
    _record(server_id)
    listed = cloud.api.get(_shares(server_id), headers={**ALICE, **AT})
    assert check(listed, "v2_97", "servers", "list_share_attachments") == {
        "shares": [{"share_id": SHARE, "status": "inactive", "tag": "data"}]}
    mine = cloud.api.get(_shares(server_id, SHARE), headers={**ALICE, **AT})
    assert check(mine, "v2_97", "servers", "show_share_attachment") == {
        "share": {"share_id": SHARE, "status": "inactive", "tag": "data"}}
    admins = check(cloud.api.get(_shares(server_id, SHARE), headers=AT), "v2_97", "servers",
                   "show_share_attachment")["share"]
    assert admins["export_location"] == "10.0.0.50:/mnt/foo" and admins["uuid"]
    check(cloud.api.delete(_shares(server_id, SHARE), headers={**ALICE, **AT}), "v2_97",
          "servers", "detach_share")
    assert share_mappings.share_mappings_get(server_id) == []
    again = cloud.api.delete(_shares(server_id, SHARE), headers={**ALICE, **AT})
    assert _fault(again, 404) == f"Share {SHARE} could not be found."


def test_a_detach_needs_the_server_stopped_or_in_error_first(cloud):
    server_id = _boot(cloud)
    _record(server_id)
    refused = cloud.api.delete(_shares(server_id, SHARE), headers={**ALICE, **AT})
    assert _fault(refused, 409) == (
        f"Cannot 'delete share' instance {server_id} while it is in vm_state active")
    assert len(share_mappings.share_mappings_get(server_id)) == 1


def test_a_servers_share_mappings_go_with_it(cloud):
    server_id = _boot(cloud)
    _record(server_id)
    assert cloud.api.delete(f"/servers/{server_id}", headers=ALICE).status_code == 204
    cloud.wait_gone(server_id)
    assert share_mappings.share_mappings_get(server_id) == []


@pytest.mark.parametrize(("share", "field"), [
    ({}, "'share_id' is a required property"),
    ({"share_id": "not-a-uuid"}, "share_id"),
    ({"share_id": SHARE, "tag": "no spaces"}, "tag"),
    ({"share_id": SHARE, "tag": ""}, "tag"),
    ({"share_id": SHARE, "mount": "/mnt"}, "Additional properties are not allowed"),
])
def test_an_attach_body_is_checked_first(cloud, share, field):
    missing = str(uuid.uuid4())  # the body is checked before the server is looked up
    assert field in _fault(_attach(cloud, missing, {"share": share}), 400)


def test_an_attach_needs_the_server_stopped(cloud):
    server_id = _boot(cloud)
    assert _fault(_attach(cloud, server_id), 409) == (
        f"Cannot 'create share' instance {server_id} while it is in vm_state active")


def test_an_attach_to_a_host_without_virtio_fs_is_novas_409(cloud):
    server_id = _stopped(cloud)
    assert _fault(_attach(cloud, server_id), 409) == (
        "Feature not supported because either compute or instance are not configured "
        "correctly.")
    _virtio_fs_host(cloud, [shares_api.VIRTIO_FS])  # but the guest's memory is not shared
    assert _attach(cloud, server_id).status_code == 409
    assert share_mappings.share_mappings_get(server_id) == []


def test_an_attach_that_passes_novas_checks_finds_no_manila_a_503(cloud):
    server_id = _stopped(cloud)
    _virtio_fs_host(cloud, [shares_api.VIRTIO_FS, shares_api.MEM_BACKING_FILE])
    message = _fault(_attach(cloud, server_id), 503)
    assert message.startswith("Connection to manila service failed: ")
    assert "shared-file-system" in message and SHARE in message
    assert share_mappings.share_mappings_get(server_id) == []
