"""/os-services through real HTTP, checked against tempest's schemas per version; a
disabled compute carries COMPUTE_STATUS_DISABLED in placement and gets no new server."""

import uuid

import pytest

from novalite.clients import placement as placement_client
from novalite.db.api import compute_nodes, services
from tests.functional.tempest_schemas import check

MV = "X-OpenStack-Nova-API-Version"
DEMO = {"X-Auth-Token": "demo:demo-project"}
COMPUTE = "novalite-compute"


def _h(version):
    return {MV: version}


def _fault(response, status, name="badRequest"):
    assert response.status_code == status, response.text
    return response.json()[name]["message"]


@pytest.mark.parametrize("version,package", [("2.1", "v2_1"), ("2.11", "v2_11"),
                                             ("2.53", "v2_53")])
def test_list_with_filters(cloud, version, package):
    listed = check(cloud.api.get("/os-services", headers=_h(version)), package, "services",
                   "list_services")["services"]
    binaries = {s["binary"] for s in listed}
    assert {COMPUTE, "novalite-conductor", "novalite-scheduler"} <= binaries
    computes = check(cloud.api.get(f"/os-services?binary={COMPUTE}&host=compute1",
                                   headers=_h(version)),
                     package, "services", "list_services")["services"]
    assert [(s["host"], s["state"], s["status"], s["zone"]) for s in computes] == [
        ("compute1", "up", "enabled", "nova")]
    assert isinstance(computes[0]["id"], str if version == "2.53" else int)


def test_disable_with_reason_enable_and_force_down_before_2_53(cloud):
    body = {"host": "compute1", "binary": COMPUTE}
    disabled = check(cloud.api.put("/os-services/disable-log-reason", headers=_h("2.11"),
                                   json={**body, "disabled_reason": "maintenance"}),
                     "v2_11", "services", "disable_log_reason")["service"]
    assert disabled == {**body, "status": "disabled", "disabled_reason": "maintenance"}
    shown = cloud.api.get("/os-services?host=compute1&binary=" + COMPUTE).json()
    assert (shown["services"][0]["status"], shown["services"][0]["disabled_reason"]) == (
        "disabled", "maintenance")
    enabled = check(cloud.api.put("/os-services/enable", json=body), "v2_1", "services",
                    "enable_disable_service")["service"]
    assert enabled["status"] == "enabled"
    down = check(cloud.api.put("/os-services/force-down", headers=_h("2.11"),
                               json={**body, "forced_down": True}),
                 "v2_11", "services", "update_forced_down")["service"]
    assert down["forced_down"] is True
    listed = cloud.api.get("/os-services?host=compute1&binary=" + COMPUTE,
                           headers=_h("2.11")).json()["services"][0]
    assert (listed["state"], listed["forced_down"]) == ("down", True)


def test_errors_before_2_53(cloud):
    body = {"host": "compute1", "binary": COMPUTE}
    assert _fault(cloud.api.put("/os-services/force-down", json=body), 404,
                  "itemNotFound") == "Unknown action"
    assert _fault(cloud.api.put("/os-services/disable-log-reason", json=body),
                  400) == "Missing disabled reason field"
    assert _fault(cloud.api.put("/os-services/disable",
                                json={"host": "compute1", "binary": "novalite-scheduler"}),
                  400).startswith("Updating a novalite-scheduler service is not supported.")
    assert _fault(cloud.api.put("/os-services/disable",
                                json={"host": "nowhere", "binary": COMPUTE}),
                  404, "itemNotFound") == (
        f"Compute host nowhere with binary {COMPUTE} could not be found.")
    assert "Additional properties" in _fault(
        cloud.api.put("/os-services/disable", json={**body, "status": "x"}), 400)
    assert _fault(cloud.api.put("/os-services/disable", json=body, headers=DEMO), 403,
                  "forbidden") == (
        "Policy doesn't allow os_compute_api:os-services:update to be performed.")
    assert cloud.api.get("/os-services", headers=DEMO).status_code == 403


def _service(cloud, host="compute1", binary=COMPUTE):
    listed = cloud.api.get(f"/os-services?host={host}&binary={binary}",
                           headers=_h("2.53")).json()["services"]
    return listed[0]


def _traits(host):
    node = compute_nodes.compute_node_get_by_host(host)[0]
    client = placement_client.report_client()
    response = client._get(f"/resource_providers/{node.uuid}/traits", "1.6")
    return set(response.json()["traits"])


def test_update_by_uuid_sets_the_disabled_trait(cloud):
    ident = _service(cloud)["id"]
    updated = check(cloud.api.put(f"/os-services/{ident}", headers=_h("2.53"),
                                  json={"status": "disabled", "disabled_reason": "rack 4"}),
                    "v2_53", "services", "update_service")["service"]
    assert (updated["status"], updated["disabled_reason"]) == ("disabled", "rack 4")
    cloud.wait(lambda: "COMPUTE_STATUS_DISABLED" in _traits("compute1"))
    server = cloud.boot()
    assert cloud.wait_status(server, "ACTIVE")["OS-EXT-SRV-ATTR:host"] == "compute2"
    check(cloud.api.put(f"/os-services/{ident}", headers=_h("2.53"),
                        json={"status": "enabled", "forced_down": False}),
          "v2_53", "services", "update_service")
    cloud.wait(lambda: "COMPUTE_STATUS_DISABLED" not in _traits("compute1"))
    assert services.service_get(ident).disabled is False


def test_errors_from_2_53(cloud):
    ident = _service(cloud)["id"]
    put = lambda path, body: cloud.api.put(path, headers=_h("2.53"), json=body)  # noqa: E731
    assert _fault(put("/os-services/disable", {"status": "disabled"}), 400) == (
        "Invalid uuid disable")
    missing = str(uuid.uuid4())
    assert _fault(put(f"/os-services/{missing}", {"status": "disabled"}), 404,
                  "itemNotFound") == f"Service {missing} could not be found."
    assert _fault(put(f"/os-services/{ident}", {}), 400) == (
        "No updates were requested. Fields 'status' or 'forced_down' should be specified.")
    assert _fault(put(f"/os-services/{ident}", {"status": "enabled",
                                                 "disabled_reason": "x"}), 400) == (
        "Specifying 'disabled_reason' with status 'enabled' is invalid.")
    assert "status" in _fault(put(f"/os-services/{ident}", {"status": "off"}), 400)
    scheduler = services.service_get_all("novalite-scheduler")[0].uuid
    assert "not supported" in _fault(put(f"/os-services/{scheduler}",
                                         {"status": "disabled"}), 400)


def test_delete(cloud):
    server = cloud.boot(availability_zone="nova:compute1")
    cloud.wait_status(server, "ACTIVE")
    busy = _service(cloud)["id"]
    assert _fault(cloud.api.delete(f"/os-services/{busy}", headers=_h("2.53")), 409,
                  "conflictingRequest") == (
        "Unable to delete compute service that is hosting instances. Migrate or delete "
        "the instances first.")
    idle = _service(cloud, host="compute2")
    assert cloud.api.delete(f"/os-services/{idle['id']}", headers=_h("2.53")
                            ).status_code == 204
    assert cloud.api.get("/os-services?host=compute2&binary=" + COMPUTE
                         ).json()["services"] == []
    hypervisors = cloud.api.get("/os-hypervisors").json()["hypervisors"]
    assert [h["hypervisor_hostname"] for h in hypervisors] == ["compute1"]
    assert _fault(cloud.api.delete(f"/os-services/{idle['id']}", headers=_h("2.53")),
                  404, "itemNotFound") == f"Service {idle['id']} not found."
    assert _fault(cloud.api.delete("/os-services/abc"), 400) == (
        "Invalid input received: id must be an integer.")
    assert _fault(cloud.api.delete("/os-services/abc", headers=_h("2.53")), 400) == (
        "Invalid uuid abc")
    assert cloud.api.delete("/os-services/1", headers=DEMO).status_code == 403
