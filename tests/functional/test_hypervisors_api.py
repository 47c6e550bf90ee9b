"""/os-hypervisors through real HTTP, checked against tempest's schemas per version."""

import importlib
import uuid

import pytest
from sqlalchemy import update
from tempest.lib.common import jsonschema_validator

from novalite.db import models, session

MV = "X-OpenStack-Nova-API-Version"
SCHEMAS = {"2.1": "v2_1", "2.28": "v2_28", "2.33": "v2_33", "2.53": "v2_53", "2.74": "v2_53"}


def _get(cloud, path, version="2.1", token=None):
    headers = {MV: version, **({"X-Auth-Token": token} if token else {})}
    return cloud.api.get(path, headers=headers)


def _valid(response, version, schema_name):
    assert response.status_code == 200, response.text
    module = importlib.import_module(
        f"tempest.lib.api_schema.response.compute.{SCHEMAS[version]}.hypervisors")
    jsonschema_validator.JSONSCHEMA_VALIDATOR(
        getattr(module, schema_name)["response_body"],
        format_checker=jsonschema_validator.FORMAT_CHECKER).validate(response.json())
    return response.json()


def _key(version):
    return tuple(int(p) for p in version.split("."))


@pytest.mark.parametrize("version", sorted(SCHEMAS, key=_key))
def test_list_detail_and_show_per_microversion(cloud, version):
    listed = _valid(_get(cloud, "/os-hypervisors", version), version,
                    "list_search_hypervisors")["hypervisors"]
    assert sorted(h["hypervisor_hostname"] for h in listed) == ["compute1", "compute2"]
    assert {(h["state"], h["status"]) for h in listed} == {("up", "enabled")}
    details = _valid(_get(cloud, "/os-hypervisors/detail", version), version,
                     "list_hypervisors_detail")["hypervisors"]
    first = details[0]
    assert isinstance(first["id"], str if _key(version) >= (2, 53) else int)
    assert isinstance(first["cpu_info"], dict if _key(version) >= (2, 28) else str)
    assert first["free_ram_mb"] == first["memory_mb"] - first["memory_mb_used"]
    assert first["service"]["host"] == first["hypervisor_hostname"]
    shown = _valid(_get(cloud, f"/os-hypervisors/{first['id']}", version), version,
                   "get_hypervisor")["hypervisor"]
    assert shown == first


def test_admin_only(cloud):
    for path in ("/os-hypervisors", "/os-hypervisors/detail", "/os-hypervisors/1",
                 "/os-hypervisors/statistics"):
        response = _get(cloud, path, token="alice:p1")
        assert response.status_code == 403
        assert "os_compute_api:os-hypervisors:" in response.json()["forbidden"]["message"]


def test_ids_by_version(cloud):
    node_uuid = _get(cloud, "/os-hypervisors", "2.53").json()["hypervisors"][0]["id"]
    bad_uuid = _get(cloud, "/os-hypervisors/1", "2.53")
    assert (bad_uuid.status_code, bad_uuid.json()["badRequest"]["message"]) == (
        400, "Invalid uuid 1")
    missing = _get(cloud, f"/os-hypervisors/{uuid.uuid4()}", "2.53")
    assert missing.status_code == 404
    not_int = _get(cloud, f"/os-hypervisors/{node_uuid}")
    assert (not_int.status_code, not_int.json()["itemNotFound"]["message"]) == (
        404, f"Hypervisor with ID '{node_uuid}' could not be found.")


def test_servers_on_hypervisors(cloud):
    server_id = cloud.boot()
    host = cloud.wait_status(server_id, "ACTIVE")["OS-EXT-SRV-ATTR:hypervisor_hostname"]
    found = _get(cloud, f"/os-hypervisors/detail?hypervisor_hostname_pattern={host}"
                        "&with_servers=true", "2.53")
    hypervisor = _valid(found, "2.53", "list_hypervisors_detail")["hypervisors"][0]
    assert [s["uuid"] for s in hypervisor["servers"]] == [server_id]
    assert hypervisor["servers"][0]["name"].startswith("instance-")
    without = _get(cloud, "/os-hypervisors?with_servers=false", "2.53").json()
    assert all("servers" not in h for h in without["hypervisors"])
    legacy = _valid(_get(cloud, f"/os-hypervisors/{host}/servers"), "2.1",
                    "get_hypervisors_servers")["hypervisors"]
    assert [s["uuid"] for h in legacy for s in h.get("servers", [])] == [server_id]
    searched = _valid(_get(cloud, "/os-hypervisors/compute/search"), "2.1",
                      "list_search_hypervisors")["hypervisors"]
    assert len(searched) == 2
    assert _get(cloud, "/os-hypervisors/compute/search", "2.53").status_code == 404
    nothing = _get(cloud, "/os-hypervisors/nowhere/search")
    assert nothing.json()["itemNotFound"]["message"] == (
        "No hypervisor matching 'nowhere' could be found.")


def test_query_parameters_from_2_53(cloud):
    unknown = _get(cloud, "/os-hypervisors?foo=1", "2.53")
    assert (unknown.status_code, unknown.json()["badRequest"]["message"]) == (
        400, "Additional properties are not allowed ('foo' was unexpected)")
    assert _get(cloud, "/os-hypervisors?foo=1", "2.52").status_code == 200
    paged = _get(cloud, "/os-hypervisors?hypervisor_hostname_pattern=c&limit=1", "2.53")
    assert paged.status_code == 400
    assert _get(cloud, "/os-hypervisors?with_servers=maybe", "2.53").status_code == 400


def test_paging_from_2_33(cloud):
    first = _valid(_get(cloud, "/os-hypervisors/detail?limit=1", "2.33"), "2.33",
                   "list_hypervisors_detail")
    assert len(first["hypervisors"]) == 1
    link = first["hypervisors_links"][0]
    assert link["rel"] == "next" and f"marker={first['hypervisors'][0]['id']}" in link["href"]
    rest = _get(cloud, f"/os-hypervisors?limit=1&marker={first['hypervisors'][0]['id']}",
                "2.33").json()
    assert [h["hypervisor_hostname"] for h in rest["hypervisors"]] != [
        first["hypervisors"][0]["hypervisor_hostname"]]
    bad = _get(cloud, "/os-hypervisors?marker=999", "2.33")
    assert (bad.status_code, bad.json()["badRequest"]["message"]) == (
        400, "marker [999] not found")


def test_statistics_and_disabled_services(cloud):
    stats = _valid(_get(cloud, "/os-hypervisors/statistics"), "2.1",
                   "get_hypervisor_statistics")["hypervisor_statistics"]
    details = _get(cloud, "/os-hypervisors/detail").json()["hypervisors"]
    assert stats["count"] == 2
    assert stats["vcpus"] == sum(h["vcpus"] for h in details)
    with session.writer() as s:  # as `compute service set --disable` will
        s.execute(update(models.Service).where(models.Service.host == "compute1")
                  .values(disabled=True, disabled_reason="maint"))
    details = {h["hypervisor_hostname"]: h
               for h in _get(cloud, "/os-hypervisors/detail").json()["hypervisors"]}
    assert details["compute1"]["status"] == "disabled"
    assert details["compute1"]["service"]["disabled_reason"] == "maint"
    assert _get(cloud, "/os-hypervisors/statistics").json()[
        "hypervisor_statistics"]["count"] == 1


@pytest.mark.parametrize("version", ["2.1", "2.53"])
def test_uptime_from_the_compute_service(cloud, version):
    node = _get(cloud, "/os-hypervisors", version).json()["hypervisors"][0]
    shown = _valid(_get(cloud, f"/os-hypervisors/{node['id']}/uptime", version), version,
                   "get_hypervisor_uptime")["hypervisor"]
    assert {k: shown[k] for k in node} == node
    assert " up " in shown["uptime"] and "load average" in shown["uptime"]


def test_uptime_refusals(cloud):
    assert _get(cloud, "/os-hypervisors/1/uptime", token="alice:p1").status_code == 403
    missing = _get(cloud, "/os-hypervisors/999/uptime")
    assert (missing.status_code, missing.json()["itemNotFound"]["message"]) == (
        404, "Hypervisor with ID '999' could not be found.")
    assert _get(cloud, "/os-hypervisors/1/uptime", "2.53").status_code == 400
    with session.writer() as s:  # the service's heartbeat is long gone
        s.execute(update(models.Service).where(models.Service.host == "compute1")
                  .values(forced_down=True))
    node = next(h for h in _get(cloud, "/os-hypervisors").json()["hypervisors"]
                if h["hypervisor_hostname"] == "compute1")
    down = _get(cloud, f"/os-hypervisors/{node['id']}/uptime")
    assert (down.status_code, down.json()["badRequest"]["message"]) == (
        400, "Compute service of compute1 is unavailable at this time.")


def test_servers_asked_for_are_always_listed_from_2_75(cloud):
    before = _get(cloud, "/os-hypervisors?with_servers=true", "2.74").json()["hypervisors"]
    assert all("servers" not in h for h in before)
    after = _get(cloud, "/os-hypervisors?with_servers=true", "2.75").json()["hypervisors"]
    assert [h["servers"] for h in after] == [[], []]
    unasked = _get(cloud, "/os-hypervisors", "2.75").json()["hypervisors"]
    assert all("servers" not in h for h in unasked)


# Nova's 2.88 detail (tempest has no schema of it): the usage figures are gone, `uptime`
# is in; /statistics and /uptime answer 404.
_DETAIL_2_88 = {"id", "hypervisor_hostname", "state", "status", "hypervisor_type",
                "hypervisor_version", "host_ip", "service", "uptime"}


def test_the_2_88_detail_has_uptime_and_no_usage(cloud):
    details = _get(cloud, "/os-hypervisors/detail", "2.88").json()["hypervisors"]
    assert {frozenset(h) for h in details} == {frozenset(_DETAIL_2_88)}
    assert all(" up " in h["uptime"] for h in details)
    shown = _get(cloud, f"/os-hypervisors/{details[0]['id']}", "2.88").json()["hypervisor"]
    assert set(shown) == _DETAIL_2_88
    assert _get(cloud, "/os-hypervisors/statistics", "2.88").status_code == 404
    assert _get(cloud, f"/os-hypervisors/{details[0]['id']}/uptime", "2.88"
                ).status_code == 404
    assert _get(cloud, "/os-hypervisors/statistics", "2.87").status_code == 200


def test_a_host_that_is_down_has_no_uptime(cloud):
    node = _get(cloud, "/os-hypervisors/detail", "2.88").json()["hypervisors"][0]
    with session.writer() as s:
        s.execute(update(models.Service).where(models.Service.host == node["service"]["host"])
                  .values(forced_down=True))
    shown = _get(cloud, f"/os-hypervisors/{node['id']}", "2.88").json()["hypervisor"]
    assert (shown["state"], shown["uptime"]) == ("down", None)
