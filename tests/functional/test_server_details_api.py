"""PUT /servers/{id}, /servers/{id}/metadata and /servers/{id}/tags through real HTTP,
checked against tempest's schemas per version, with their 400/403/404/409 answers."""

import pytest

from novalite.db.api import instances
from novalite.image import db as images
from tests.functional.tempest_schemas import check

MV = "X-OpenStack-Nova-API-Version"
ALICE = {"X-Auth-Token": "alice:proj1"}
READER = {"X-Auth-Token": "carol:proj1", "X-Roles": "reader"}
BOB = {"X-Auth-Token": "bob:proj2"}


def _h(version="2.1", who=ALICE):
    return {MV: version, **who}


def _fault(response, status, name="badRequest"):
    assert response.status_code == status, response.text
    return response.json()[name]["message"]


def _boot(cloud, **server):
    body = {"server": {"name": "vm", "flavorRef": "1", "imageRef": images.DEFAULT_IMAGE_ID,
                       "networks": "none", **server}}
    response = cloud.api.post("/servers", json=body, headers=_h("2.52"))
    assert response.status_code == 202, response.text
    server_id = response.json()["server"]["id"]
    cloud.wait_status(server_id, "ACTIVE")
    return server_id


@pytest.fixture
def server(cloud):
    return _boot(cloud, metadata={"a": "1"}, tags=["blue", "red", "blue"])


@pytest.mark.parametrize("version,package", [
    ("2.1", "v2_1"), ("2.9", "v2_9"), ("2.19", "v2_19"), ("2.26", "v2_26"),
    ("2.47", "v2_47"), ("2.63", "v2_63"), ("2.71", "v2_71"), ("2.73", "v2_73")])
def test_update_server(cloud, server, version, package):
    body = {"name": "renamed", "accessIPv4": "10.0.0.1", "accessIPv6": "::0:1"}
    if tuple(map(int, version.split("."))) >= (2, 19):
        body["description"] = "described"
    shown = check(cloud.api.put(f"/servers/{server}", json={"server": body},
                                headers=_h(version)),
                  package, "servers", "update_server")["server"]
    assert (shown["name"], shown["accessIPv4"], shown["accessIPv6"]) == (
        "renamed", "10.0.0.1", "::1")
    stored = cloud.api.get(f"/servers/{server}", headers=_h("2.26")).json()["server"]
    assert stored["name"] == "renamed"
    assert stored["tags"] == ["blue", "red"]


def test_update_server_errors(cloud, server):
    put = lambda body, **kw: cloud.api.put(f"/servers/{server}", json=body,  # noqa: E731
                                           **kw)
    assert "description" in _fault(put({"server": {"description": "x"}},
                                       headers=_h("2.1")), 400)
    assert "hostname" in _fault(put({"server": {"hostname": "h"}}, headers=_h("2.74")), 400)
    assert "accessIPv4" in _fault(put({"server": {"accessIPv4": "nope"}}, headers=_h()),
                                  400)
    assert _fault(put({"server": {"name": "x"}}, headers=_h(who=BOB)), 404,
                  "itemNotFound") == f"Instance {server} could not be found."
    assert _fault(put({"server": {"name": "x"}}, headers=_h(who=READER)), 403,
                  "forbidden") == (
        "Policy doesn't allow os_compute_api:servers:update to be performed.")


def test_metadata_routes(cloud, server):
    base = f"/servers/{server}/metadata"
    listed = check(cloud.api.get(base, headers=_h()), "v2_1", "servers",
                   "list_server_metadata")
    assert listed == {"metadata": {"a": "1"}}
    merged = check(cloud.api.post(base, json={"metadata": {"b": "2"}}, headers=_h()),
                   "v2_1", "servers", "update_server_metadata")
    assert merged == {"metadata": {"a": "1", "b": "2"}}
    replaced = check(cloud.api.put(base, json={"metadata": {"c": "3"}}, headers=_h()),
                     "v2_1", "servers", "set_server_metadata")
    assert replaced == {"metadata": {"c": "3"}}
    item = check(cloud.api.put(f"{base}/d", json={"meta": {"d": "4"}}, headers=_h()),
                 "v2_1", "servers", "set_show_server_metadata_item")
    assert item == {"meta": {"d": "4"}}
    assert check(cloud.api.get(f"{base}/d", headers=_h(who=READER)), "v2_1", "servers",
                 "set_show_server_metadata_item") == {"meta": {"d": "4"}}
    check(cloud.api.delete(f"{base}/c", headers=_h()), "v2_1", "servers",
          "delete_server_metadata_item")
    assert cloud.server(server)["metadata"] == {"d": "4"}


def test_metadata_errors(cloud, server, conf):
    base = f"/servers/{server}/metadata"
    assert _fault(cloud.api.get(f"{base}/zz", headers=_h()), 404, "itemNotFound") == (
        "Metadata item was not found")
    assert _fault(cloud.api.delete(f"{base}/zz", headers=_h()), 404, "itemNotFound") == (
        "Metadata item was not found")
    assert _fault(cloud.api.put(f"{base}/x", json={"meta": {"y": "1"}}, headers=_h()),
                  400) == "Request body and URI mismatch"
    assert "meta" in _fault(cloud.api.put(f"{base}/x", json={"meta": {"x": "1", "y": "2"}},
                                          headers=_h()), 400)
    assert _fault(cloud.api.post(base, json={"metadata": {"b": "2"}},
                                 headers=_h(who=READER)), 403, "forbidden") == (
        "Policy doesn't allow os_compute_api:server-metadata:create to be performed.")
    assert cloud.api.get(base, headers=_h(who=BOB)).status_code == 404
    conf.set_override("metadata_items", 2, group="quota")
    assert _fault(cloud.api.post(base, json={"metadata": {"b": "2", "c": "3"}},
                                 headers=_h()), 403, "forbidden") == (
        "Maximum number of metadata items exceeds 2")
    assert cloud.api.put(base, json={"metadata": {"b": "2", "c": "3"}},
                         headers=_h()).status_code == 200
    instances.instance_update(server, {"locked": True})
    assert _fault(cloud.api.post(base, json={"metadata": {"b": "9"}}, headers=_h()), 409,
                  "conflictingRequest") == f"Instance {server} is locked"
    instances.instance_update(server, {"locked": False, "vm_state": "error"})
    assert _fault(cloud.api.delete(f"{base}/b", headers=_h()), 409,
                  "conflictingRequest") == (
        f"Cannot 'delete metadata' instance {server} while it is in vm_state error")


def test_tag_routes(cloud, server):
    base = f"/servers/{server}/tags"
    assert check(cloud.api.get(base, headers=_h("2.26")), "v2_26", "servers",
                 "list_tags") == {"tags": ["blue", "red"]}
    added = cloud.api.put(f"{base}/green", headers=_h("2.26"))
    check(added, "v2_26", "servers", "update_tag")
    assert added.status_code == 201
    assert added.headers["Location"].endswith(f"/v2.1/servers/{server}/tags/green")
    assert cloud.api.put(f"{base}/green", headers=_h("2.26")).status_code == 204
    check(cloud.api.get(f"{base}/green", headers=_h("2.26", READER)), "v2_26", "servers",
          "check_tag_existence")
    replaced = check(cloud.api.put(base, json={"tags": ["x", "y"]}, headers=_h("2.26")),
                     "v2_26", "servers", "update_all_tags")
    assert replaced == {"tags": ["x", "y"]}
    check(cloud.api.delete(f"{base}/x", headers=_h("2.26")), "v2_26", "servers",
          "delete_tag")
    assert cloud.api.get(f"/servers/{server}", headers=_h("2.26")).json()["server"][
        "tags"] == ["y"]
    check(cloud.api.delete(base, headers=_h("2.26")), "v2_26", "servers",
          "delete_all_tags")
    assert cloud.api.get(base, headers=_h("2.26")).json() == {"tags": []}


def test_tag_errors(cloud, server):
    base = f"/servers/{server}/tags"
    assert cloud.api.get(base, headers=_h("2.25")).status_code == 404
    assert _fault(cloud.api.get(f"{base}/nope", headers=_h("2.26")), 404,
                  "itemNotFound") == f"Server {server} has no tag 'nope'"
    assert _fault(cloud.api.delete(f"{base}/nope", headers=_h("2.26")), 404,
                  "itemNotFound") == f"Instance {server} has no tag 'nope'"
    assert "'a,b' does not match" in _fault(cloud.api.put(base, json={"tags": ["a,b"]},
                                                          headers=_h("2.26")), 400)
    assert "is too long" in _fault(cloud.api.put(base, json={"tags": [str(i) for i in
                                                                      range(51)]},
                                                 headers=_h("2.26")), 400)
    assert _fault(cloud.api.put(f"{base}/{'x' * 61}", headers=_h("2.26")), 400).startswith(
        f"Tag '{'x' * 61}' is invalid.")
    cloud.api.put(base, json={"tags": [str(i) for i in range(50)]}, headers=_h("2.26"))
    assert _fault(cloud.api.put(f"{base}/one-more", headers=_h("2.26")), 400) == (
        "The number of tags exceeded the per-server limit 50")
    assert _fault(cloud.api.put(f"{base}/x", headers=_h("2.26", READER)), 403,
                  "forbidden") == (
        "Policy doesn't allow os_compute_api:os-server-tags:update to be performed.")
    assert cloud.api.get(base, headers=_h("2.26", BOB)).status_code == 404
    instances.instance_update(server, {"vm_state": "error"})
    assert _fault(cloud.api.delete(base, headers=_h("2.26")), 409,
                  "conflictingRequest") == (
        f"Cannot 'delete tags' instance {server} while it is in vm_state error")


def test_tags_on_create_need_2_52(cloud):
    body = {"server": {"name": "vm", "flavorRef": "1", "imageRef": images.DEFAULT_IMAGE_ID,
                       "tags": ["a"]}}
    assert "tags" in _fault(cloud.api.post("/servers", json=body, headers=_h("2.51")), 400)
