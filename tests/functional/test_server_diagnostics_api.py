"""GET /servers/{id}/diagnostics through real HTTP (admin only): the 2.48 standard form
against tempest's schema, the older driver-keyed form, and Nova's 403/404/409."""

from novalite.image import db as images
from tests.functional.tempest_schemas import check

MV = "X-OpenStack-Nova-API-Version"


def _get(cloud, server_id, version="2.1", **headers):
    return cloud.api.get(f"/servers/{server_id}/diagnostics", headers={MV: version, **headers})


def test_a_running_servers_diagnostics_in_both_forms(cloud):
    server_id = cloud.boot(flavor="2")
    server = cloud.wait_status(server_id, "ACTIVE")
    found = check(_get(cloud, server_id, "2.48"), "v2_48", "servers",
                  "show_server_diagnostics")
    flavor = cloud.api.get("/flavors/2").json()["flavor"]
    assert (found["state"], found["num_cpus"], found["num_disks"]) == (
        "running", flavor["vcpus"], 1)
    assert found["memory_details"]["maximum"] == flavor["ram"]
    macs = [a["OS-EXT-IPS-MAC:mac_addr"] for net in server["addresses"].values()
            for a in net]
    assert [n["mac_address"] for n in found["nic_details"]] == macs
    legacy = _get(cloud, server_id).json()
    assert legacy["memory"] == flavor["ram"] * 1024
    assert {f"cpu{i}_time" for i in range(flavor["vcpus"])} <= set(legacy)


def test_only_a_running_server_and_only_for_admins(cloud):
    server_id = cloud.boot()
    cloud.wait_status(server_id, "ACTIVE")
    refused = _get(cloud, server_id, **{"X-Auth-Token": "alice:p1"})
    assert refused.status_code == 404  # another project's server does not exist for her
    cloud.api.post(f"/servers/{server_id}/action", json={"os-stop": None})
    cloud.wait_status(server_id, "SHUTOFF")
    stopped = _get(cloud, server_id, "2.48")
    assert (stopped.status_code, stopped.json()["conflictingRequest"]["message"]) == (
        409, f"Cannot 'get_diagnostics' instance {server_id} while it is in power state "
             "shutdown")


def test_a_member_of_the_project_is_refused_by_policy(cloud):
    created = cloud.api.post("/servers", headers={"X-Auth-Token": "alice:p1"}, json={
        "server": {"name": "a", "flavorRef": "1",
                   "imageRef": images.DEFAULT_IMAGE_ID}})
    server_id = created.json()["server"]["id"]
    cloud.wait_status(server_id, "ACTIVE")
    refused = _get(cloud, server_id, **{"X-Auth-Token": "alice:p1"})
    assert (refused.status_code, refused.json()["forbidden"]["message"]) == (
        403, "Policy doesn't allow os_compute_api:os-server-diagnostics to be performed.")
