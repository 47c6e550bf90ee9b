"""The block storage API's volumes over real HTTP on the all-in-one: Cinder's shapes,
codes and fault body, the file backend's real qcow2 files, list filters and paging, and
a volume larger than the backend going to `error` with a message saying why."""

from __future__ import annotations

import json
import os
import subprocess

import httpx
import pytest

from novalite.identity import bootstrap
from novalite.volume import backend


@pytest.fixture
def vol(cloud):
    return httpx.Client(base_url=f"{cloud.base_url}/volume/v3", timeout=30,
                        headers={"OpenStack-API-Version": "volume 3.70"})


@pytest.fixture
def user(cloud):
    """A member of the demo project (noauth2 token user:project), with its id in URLs."""
    demo = bootstrap.project_ids("demo")[0]
    return httpx.Client(base_url=f"{cloud.base_url}/volume/v3/{demo}", timeout=30,
                        headers={"X-Auth-Token": f"demo:{demo}"}), demo


def _fault(response: httpx.Response, code: int, name: str) -> str:
    assert response.status_code == code, response.text
    body = response.json()[name]
    assert body["code"] == code
    return body["message"]


def _created(cloud, client: httpx.Client, **volume) -> dict:
    response = client.post("/volumes", json={"volume": {"size": 1, **volume}})
    assert response.status_code == 202, response.text
    assert response.json()["volume"]["status"] == "creating"
    cloud.settle()
    return client.get(f"/volumes/{response.json()['volume']['id']}").json()["volume"]


def test_create_show_update_delete_a_real_volume(cloud, user):
    client, demo = user
    volume = _created(cloud, client, name="data", description="d", metadata={"k": "v"},
                      bootable=True)
    assert (volume["status"], volume["size"], volume["name"], volume["bootable"]) == (
        "available", 1, "data", "true")
    assert volume["volume_type"] == "__DEFAULT__" and volume["metadata"] == {"k": "v"}
    assert volume["os-vol-tenant-attr:tenant_id"] == demo
    assert "os-vol-host-attr:host" not in volume  # the admin's
    path = os.path.join(backend.volumes_dir(), volume["id"])
    info = json.loads(subprocess.run(["qemu-img", "info", "--output=json", path],
                                     check=True, capture_output=True, text=True).stdout)
    assert (info["format"], info["virtual-size"]) == ("qcow2", 1024**3)

    updated = client.put(f"/volumes/{volume['id']}", json={"volume": {
        "name": "data2", "metadata": {"a": "b"}}})
    assert updated.status_code == 200, updated.text
    assert (updated.json()["volume"]["name"], updated.json()["volume"]["metadata"]) == (
        "data2", {"a": "b"})

    assert client.delete(f"/volumes/{volume['id']}").status_code == 202
    cloud.settle()
    message = _fault(client.get(f"/volumes/{volume['id']}"), 404, "itemNotFound")
    assert message == f"Volume {volume['id']} could not be found."
    assert not os.path.exists(path)


def test_microversions_versions_and_project_urls(cloud, vol, user):
    root = httpx.get(f"{cloud.base_url}/volume/")
    assert root.status_code == 300
    (version,) = root.json()["versions"]
    assert (version["id"], version["min_version"], version["version"]) == ("v3.0", "3.0",
                                                                          "3.70")
    assert vol.get("/volumes").headers["OpenStack-API-Version"] == "volume 3.70"
    plain = httpx.get(f"{cloud.base_url}/volume/v3/volumes")
    assert plain.headers["OpenStack-API-Version"] == "volume 3.0"
    message = _fault(vol.get("/volumes", headers={"OpenStack-API-Version": "volume 3.71"}),
                     406, "computeFault")
    assert message == ("Version 3.71 is not supported by the API. Minimum is 3.0 and "
                       "maximum is 3.70.")
    _fault(vol.get("/volumes", headers={"OpenStack-API-Version": "volume 3.x"}), 400,
           "badRequest")
    client, demo = user
    other = httpx.get(f"{cloud.base_url}/volume/v3/{'0' * 32}/volumes",
                      headers={"X-Auth-Token": f"demo:{demo}"})
    assert _fault(other, 400, "badRequest") == "Malformed request url"
    assert _fault(vol.get("/backups"), 501, "notImplemented") == (
        "The backups API is not implemented by novalite.")
    _fault(vol.get("/no-such-thing"), 404, "itemNotFound")


def test_bad_input_is_a_400_naming_the_field(cloud, user):
    client, _ = user
    for body, field in (({"volume": {"size": 0}}, "size"),
                        ({"volume": {"size": "x"}}, "size"),
                        ({"volume": {"size": 1, "backup_id": "b"}}, "backup_id"),
                        ({"volume": {"size": 1, "snapshot_id": "s", "source_volid": "v"}},
                         "snapshot_id, source_volid"),
                        ({"volume": {"size": 1, "multiattach": True}}, "multiattach"),
                        ({"volume": {"size": 1, "metadata": {"k": 1}}}, "k")):
        assert field in _fault(client.post("/volumes", json=body), 400, "badRequest")
    assert "could not be found" in _fault(client.post("/volumes", json={"volume": {
        "size": 1, "volume_type": "nope"}}), 404, "itemNotFound")
    assert "Invalid filters foo" in _fault(client.get("/volumes?foo=1"), 400, "badRequest")
    _fault(client.get("/volumes?limit=-1"), 400, "badRequest")
    _fault(client.get("/volumes?sort=name:sideways"), 400, "badRequest")
    _fault(client.post("/volumes", content=b"{"), 400, "badRequest")


def test_lists_filter_sort_and_page(cloud, user, vol):
    client, _ = user
    made = [_created(cloud, client, name=f"v{i}", metadata={"i": str(i)}) for i in range(3)]
    summary = client.get("/volumes").json()["volumes"]
    assert {v["name"] for v in summary} == {"v0", "v1", "v2"} and set(summary[0]) == {
        "id", "name", "links"}
    by_name = client.get("/volumes/detail", params={"sort": "name:asc"}).json()["volumes"]
    assert [v["name"] for v in by_name] == ["v0", "v1", "v2"]
    page = client.get("/volumes", params={"sort": "name:asc", "limit": 2}).json()
    assert [v["name"] for v in page["volumes"]] == ["v0", "v1"]
    assert "marker=" in page["volumes_links"][0]["href"]
    rest = client.get("/volumes", params={"sort": "name:asc",
                                          "marker": page["volumes"][-1]["id"]}).json()
    assert [v["name"] for v in rest["volumes"]] == ["v2"]
    assert [v["name"] for v in client.get("/volumes", params={
        "metadata": '{"i": "1"}'}).json()["volumes"]] == ["v1"]
    assert [v["name"] for v in client.get("/volumes", params={"name": "v2"}).json()[
        "volumes"]] == ["v2"]
    assert vol.get("/volumes").json()["volumes"] == []  # the admin's own project
    everyone = vol.get("/volumes/detail", params={"all_tenants": "1"}).json()["volumes"]
    assert {v["id"] for v in made} <= {v["id"] for v in everyone}
    assert everyone[0]["os-vol-host-attr:host"].endswith("@file#file")


def test_a_volume_larger_than_the_backend_is_an_error_with_a_reason(cloud, user, conf):
    client, _ = user
    volume = _created(cloud, client, size=conf.volume_backend_capacity_gb + 1)
    assert volume["status"] == "error"
    (message,) = client.get("/messages", headers={
        "OpenStack-API-Version": "volume 3.3"}).json()["messages"]
    assert message["resource_uuid"] == volume["id"]
    assert message["user_message"] == ("schedule allocate volume:Could not find any "
                                       "available weighted backend.")
    assert message["event_id"] == "VOLUME_VOLUME_001_003"
    assert client.delete(f"/volumes/{volume['id']}").status_code == 202
    assert client.get(f"/volumes/{volume['id']}").status_code == 404



def test_the_admin_sees_the_backends_capacity(cloud, vol, user, conf):
    client, _ = user
    _created(cloud, client, size=3)
    (pool,) = vol.get("/scheduler-stats/get_pools", params={"detail": "True"}).json()["pools"]
    assert pool["name"].endswith("@file#file")
    capabilities = pool["capabilities"]
    assert (capabilities["total_capacity_gb"], capabilities["allocated_capacity_gb"],
            capabilities["free_capacity_gb"]) == (conf.volume_backend_capacity_gb, 3,
                                                  conf.volume_backend_capacity_gb - 3)
    assert client.get("/scheduler-stats/get_pools").status_code == 403
