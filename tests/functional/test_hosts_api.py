"""GET /os-hosts through real HTTP, against tempest's schema: the hosts of the enabled
services with their zones, admin only, 404 from 2.43."""

from tests.functional.tempest_schemas import check

MV = "X-OpenStack-Nova-API-Version"


def test_list_by_zone_admin_only_until_2_42(cloud):
    hosts = check(cloud.api.get("/os-hosts"), "v2_1", "hosts", "list_hosts")["hosts"]
    computes = sorted(h["host_name"] for h in hosts if h["service"] == "compute")
    assert computes == ["compute1", "compute2"]
    zone = next(h["zone"] for h in hosts if h["service"] == "compute")
    in_zone = cloud.api.get("/os-hosts", params={"zone": zone}).json()["hosts"]
    assert {h["zone"] for h in in_zone} == {zone}
    assert cloud.api.get("/os-hosts", params={"zone": "nowhere"}).json() == {"hosts": []}
    assert cloud.api.get("/os-hosts", headers={"X-Auth-Token": "alice:p1"}
                         ).status_code == 403
    assert cloud.api.get("/os-hosts", headers={MV: "2.43"}).status_code == 404
    assert cloud.api.get("/os-hosts", headers={MV: "2.42"}).status_code == 200


def test_show_what_a_host_has_and_gives_each_project(cloud):
    server_id = cloud.boot(flavor="2")
    host = cloud.wait_status(server_id, "ACTIVE")["OS-EXT-SRV-ATTR:host"]
    shown = check(cloud.api.get(f"/os-hosts/{host}"), "v2_1", "hosts", "get_host_detail")
    rows = {r["resource"]["project"]: r["resource"] for r in shown["host"]}
    flavor = cloud.api.get("/flavors/2").json()["flavor"]
    assert rows["(used_max)"]["cpu"] == flavor["vcpus"]
    assert rows["(used_max)"]["memory_mb"] == flavor["ram"]
    assert rows["(used_max)"]["disk_gb"] == flavor["disk"]
    owner = cloud.server(server_id)["tenant_id"]
    assert rows[owner] == {**rows["(used_max)"], "project": owner}
    assert rows["(total)"]["cpu"] >= rows["(used_max)"]["cpu"]
    missing = cloud.api.get("/os-hosts/nowhere")
    assert (missing.status_code, missing.json()["itemNotFound"]["message"]) == (
        404, "Compute host nowhere could not be found.")
    assert cloud.api.get(f"/os-hosts/{host}", headers={MV: "2.43"}).status_code == 404
    assert cloud.api.get(f"/os-hosts/{host}", headers={"X-Auth-Token": "alice:p1"}
                         ).status_code == 403


def test_host_actions_are_not_implemented_as_with_novas_libvirt(cloud):
    response = cloud.api.get("/os-hosts/compute1/reboot")
    assert response.status_code == 501
