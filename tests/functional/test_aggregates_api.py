"""/os-aggregates and /os-availability-zone through real HTTP, as the openstack client
drives them, and placement steered by nothing but these APIs."""

import pytest
from sqlalchemy import update
from tempest.lib.api_schema.response.compute.v2_1 import aggregates as tempest_agg
from tempest.lib.api_schema.response.compute.v2_1 import availability_zone as tempest_az
from tempest.lib.common import jsonschema_validator

from novalite.db import models, session

DEMO = {"X-Auth-Token": "demo:demo-project"}
TENANT_FILTERS = ["ComputeFilter", "RamFilter", "AvailabilityZoneFilter",
                  "AggregateMultiTenancyIsolation"]


def _ok(response, status=200):
    assert response.status_code == status, response.text
    return response.json() if response.content else None


def _fault(response, status, name):
    assert response.status_code == status, response.text
    return response.json()[name]["message"]


def _tempest(body, schema):
    """Checked as tempest's clients check: strict, with its format checker."""
    jsonschema_validator.JSONSCHEMA_VALIDATOR(
        schema["response_body"], format_checker=jsonschema_validator.FORMAT_CHECKER
    ).validate(body)
    return body


def _create(cloud, name, zone=None):
    body = {"name": name, **({"availability_zone": zone} if zone else {})}
    return _ok(cloud.api.post("/os-aggregates", json={"aggregate": body}))["aggregate"]


def _action(cloud, agg_id, name, body, headers=None):
    return cloud.api.post(f"/os-aggregates/{agg_id}/action", json={name: body},
                          headers=headers)


def test_create_show_update_list_delete(cloud):
    created = _create(cloud, "rack1", "az1")
    _tempest({"aggregate": created}, tempest_agg.create_aggregate)
    assert set(created) == {"id", "name", "availability_zone", "created_at", "updated_at",
                            "deleted_at", "deleted"}  # no hosts nor metadata on create
    assert (created["name"], created["availability_zone"], created["deleted"],
            created["updated_at"]) == ("rack1", "az1", False, None)
    assert len(created["created_at"]) == len("2013-08-18T12:17:56.856455")
    agg_id = created["id"]
    shown = _tempest(_ok(cloud.api.get(f"/os-aggregates/{agg_id}")),
                     tempest_agg.get_aggregate)["aggregate"]
    assert (shown["hosts"], shown["metadata"]) == ([], {"availability_zone": "az1"})
    assert "uuid" not in shown
    updated = _tempest(_ok(cloud.api.put(f"/os-aggregates/{agg_id}", json={
        "aggregate": {"name": " rack2 ", "availability_zone": "az2"}})),
        tempest_agg.update_aggregate)["aggregate"]
    assert (updated["name"], updated["availability_zone"]) == ("rack2", "az2")
    assert updated["metadata"] == {"availability_zone": "az2"} and updated["updated_at"]
    listed = _tempest(_ok(cloud.api.get("/os-aggregates")),
                      tempest_agg.list_aggregates)["aggregates"]
    assert [(a["id"], a["name"]) for a in listed] == [(agg_id, "rack2")]
    deleted = cloud.api.delete(f"/os-aggregates/{agg_id}")
    assert (deleted.status_code, deleted.content) == (200, b"")
    assert _fault(cloud.api.get(f"/os-aggregates/{agg_id}"), 404, "itemNotFound") == \
        f"Aggregate {agg_id} could not be found."
    assert _ok(cloud.api.get("/os-aggregates")) == {"aggregates": []}


def test_uuid_from_2_41(cloud):
    at = {"OpenStack-API-Version": "compute 2.41"}
    created = _ok(cloud.api.post("/os-aggregates", json={"aggregate": {"name": "r"}},
                                 headers=at))["aggregate"]
    assert len(created["uuid"]) == 36 and created["availability_zone"] is None
    shown = _ok(cloud.api.get(f"/os-aggregates/{created['id']}", headers=at))["aggregate"]
    listed = _ok(cloud.api.get("/os-aggregates", headers=at))["aggregates"]
    assert shown["uuid"] == listed[0]["uuid"] == created["uuid"]
    before = {"OpenStack-API-Version": "compute 2.40"}
    assert "uuid" not in _ok(cloud.api.get("/os-aggregates", headers=before))["aggregates"][0]


def test_actions_add_and_remove_hosts_and_set_metadata(cloud):
    agg_id = _create(cloud, "rack1")["id"]
    added = _tempest(_ok(_action(cloud, agg_id, "add_host", {"host": "compute1"})),
                     tempest_agg.aggregate_add_remove_host)["aggregate"]
    assert added["hosts"] == ["compute1"]
    _ok(_action(cloud, agg_id, "add_host", {"host": "compute2"}))
    meta = _ok(_action(cloud, agg_id, "set_metadata",
                       {"metadata": {"ssd": "true", "rack": "r1"}}))["aggregate"]
    assert meta["metadata"] == {"ssd": "true", "rack": "r1"} and meta["updated_at"]
    meta = _ok(_action(cloud, agg_id, "set_metadata",
                       {"metadata": {"ssd": None, "gone": None, "availability_zone": "az9"}}))
    assert meta["aggregate"]["metadata"] == {"rack": "r1", "availability_zone": "az9"}
    assert meta["aggregate"]["availability_zone"] == "az9"
    removed = _ok(_action(cloud, agg_id, "remove_host", {"host": "compute1"}))["aggregate"]
    assert removed["hosts"] == ["compute2"]


def test_conflicts_and_missing_things_answer_as_nova(cloud):
    rack1 = _create(cloud, "rack1", "az1")["id"]
    rack2 = _create(cloud, "rack2", "az2")["id"]
    post = cloud.api.post
    assert _fault(post("/os-aggregates", json={"aggregate": {"name": "rack1"}}), 409,
                  "conflictingRequest") == "Aggregate rack1 already exists."
    assert _fault(cloud.api.put(f"/os-aggregates/{rack2}", json={"aggregate": {
        "name": "rack1"}}), 409, "conflictingRequest") == "Aggregate rack1 already exists."
    assert _fault(_action(cloud, rack1, "add_host", {"host": "nohost"}), 404,
                  "itemNotFound") == "Compute host nohost could not be found."
    _ok(_action(cloud, rack1, "add_host", {"host": "compute1"}))
    assert _fault(_action(cloud, rack1, "add_host", {"host": "compute1"}), 409,
                  "conflictingRequest") == f"Aggregate {rack1} already has host compute1."
    assert _fault(_action(cloud, rack2, "add_host", {"host": "compute1"}), 409,
                  "conflictingRequest") == (
        f"Cannot add host to aggregate {rack2}. Reason: One or more hosts already in "
        "availability zone(s) ['az1'].")
    assert _fault(_action(cloud, rack1, "remove_host", {"host": "compute2"}), 404,
                  "itemNotFound") == f"Cannot remove host compute2 in aggregate {rack1}"
    assert _fault(_action(cloud, 999, "remove_host", {"host": "compute1"}), 404,
                  "itemNotFound") == "Cannot remove host compute1 in aggregate 999"
    assert _fault(cloud.api.delete(f"/os-aggregates/{rack1}"), 400, "badRequest") == (
        f"Cannot remove host from aggregate {rack1}. Reason: Host aggregate is not empty.")
    for bad in (cloud.api.get("/os-aggregates/999"), cloud.api.delete("/os-aggregates/999"),
                _action(cloud, 999, "set_metadata", {"metadata": {}}),
                _action(cloud, 999, "add_host", {"host": "compute1"}),
                cloud.api.get(f"/os-aggregates/{2**40}")):
        assert _fault(bad, 404, "itemNotFound").endswith(" could not be found.")
    assert _fault(cloud.api.get("/os-aggregates/abc"), 400, "badRequest") == \
        "Invalid input received: id must be an integer"


def test_zone_changes_that_nova_refuses(cloud):
    rack1 = _create(cloud, "rack1", "az1")["id"]
    rack2 = _create(cloud, "rack2")["id"]
    _ok(_action(cloud, rack1, "add_host", {"host": "compute1"}))
    _ok(_action(cloud, rack2, "add_host", {"host": "compute1"}))  # no zone: no clash
    assert _fault(cloud.api.put(f"/os-aggregates/{rack2}", json={"aggregate": {
        "availability_zone": "az2"}}), 400, "badRequest") == (
        f"Cannot update aggregate {rack2}. Reason: One or more hosts already in "
        "availability zone(s) ['az1'].")
    assert _fault(_action(cloud, rack1, "set_metadata", {"metadata": {
        "availability_zone": None}}), 400, "badRequest") == (
        f"Cannot update metadata of aggregate {rack1}. Reason: Aggregate rack1 does not "
        "support empty named availability zone.")
    assert _fault(cloud.api.put(f"/os-aggregates/{rack1}", json={"aggregate": {
        "availability_zone": None}}), 400, "badRequest").endswith(
        "does not support empty named availability zone.")
    server = cloud.boot("pinned", availability_zone="az1")
    cloud.wait_status(server, "ACTIVE")
    assert _fault(_action(cloud, rack1, "set_metadata", {"metadata": {
        "availability_zone": "az3"}}), 400, "badRequest") == (
        f"Cannot update metadata of aggregate {rack1}. Reason: One or more hosts contain "
        "instances in this zone.")
    assert "would change from 'az1' to 'None' but the host already has 1 instance(s)" in \
        _fault(_action(cloud, rack1, "remove_host", {"host": "compute1"}), 409,
               "conflictingRequest")
    rack3 = _create(cloud, "rack3", "az1")["id"]  # the same zone again is no move
    _ok(_action(cloud, rack3, "add_host", {"host": "compute1"}))
    assert _ok(cloud.api.put(f"/os-aggregates/{rack1}", json={"aggregate": {
        "name": "renamed"}}))["aggregate"]["name"] == "renamed"


@pytest.mark.parametrize(("body", "message"), [
    ({"aggregate": {"name": " padded"}}, "An invalid 'name' value was provided. The name "
     "must be: printable characters. Can not start or end with whitespace."),
    ({"aggregate": {"name": "x" * 256}}, "is too long"),
    ({"aggregate": {"name": ""}}, "should be non-empty"),
    ({"aggregate": {"name": "ok", "availability_zone": "a:b"}},
     "The name must be: printable characters except :."),
    ({"aggregate": {"name": "ok", "bogus": 1}}, "Additional properties are not allowed"),
    ({"aggregate": {}}, "'name' is a required property"),
    ({"rack": {"name": "ok"}}, "'aggregate' is a required property"),
])
def test_create_bodies_are_validated(cloud, body, message):
    assert message in _fault(cloud.api.post("/os-aggregates", json=body), 400, "badRequest")


def test_action_bodies_are_validated(cloud):
    agg_id = _create(cloud, "rack1")["id"]
    url = f"/os-aggregates/{agg_id}/action"
    assert _fault(cloud.api.post(url, json={"bogus": {}}), 400, "badRequest") == \
        "There is no such action: bogus"
    assert _fault(cloud.api.post(url, json={"add_host": {"host": "a"}, "x": 1}), 400,
                  "badRequest") == "Malformed request body"
    assert "does not match" in _fault(_action(cloud, agg_id, "add_host", {"host": "a b"}),
                                      400, "badRequest")
    assert "'bad/key' does not match any of the regexes" in _fault(_action(
        cloud, agg_id, "set_metadata", {"metadata": {"bad/key": "v"}}), 400, "badRequest")
    assert "is too long" in _fault(_action(
        cloud, agg_id, "set_metadata", {"metadata": {"k": "v" * 256}}), 400, "badRequest")
    assert "is not valid under any of the given schemas" in _fault(cloud.api.put(
        f"/os-aggregates/{agg_id}", json={"aggregate": {}}), 400, "badRequest")


def test_only_admins_manage_aggregates(cloud):
    agg_id = _create(cloud, "rack1")["id"]
    calls = {
        "index": cloud.api.get("/os-aggregates", headers=DEMO),
        "create": cloud.api.post("/os-aggregates", json={"aggregate": {"name": "x"}},
                                 headers=DEMO),
        "show": cloud.api.get(f"/os-aggregates/{agg_id}", headers=DEMO),
        "update": cloud.api.put(f"/os-aggregates/{agg_id}",
                                json={"aggregate": {"name": "y"}}, headers=DEMO),
        "delete": cloud.api.delete(f"/os-aggregates/{agg_id}", headers=DEMO),
        "add_host": _action(cloud, agg_id, "add_host", {"host": "compute1"}, DEMO),
        "remove_host": _action(cloud, agg_id, "remove_host", {"host": "compute1"}, DEMO),
        "set_metadata": _action(cloud, agg_id, "set_metadata", {"metadata": {}}, DEMO),
    }
    for rule, response in calls.items():
        assert _fault(response, 403, "forbidden") == \
            f"Policy doesn't allow os_compute_api:os-aggregates:{rule} to be performed."
    assert _fault(cloud.api.get("/os-availability-zone/detail", headers=DEMO), 403,
                  "forbidden") == ("Policy doesn't allow os_compute_api:os-availability-zone:"
                                   "detail to be performed.")
    admin = {"X-Auth-Token": "admin:demo-project"}
    assert _ok(cloud.api.get("/os-aggregates", headers=admin))["aggregates"][0]["id"] == agg_id


def _zones(cloud, path="/os-availability-zone", headers=None):
    """The zones by name, the body checked against tempest's strict schema first."""
    body = _tempest(_ok(cloud.api.get(path, headers=headers)),
                    tempest_az.list_availability_zone_list_detail if path.endswith("/detail")
                    else tempest_az.list_availability_zone_list)
    return {z["zoneName"]: z for z in body["availabilityZoneInfo"]}


def test_availability_zones_list_and_detail(cloud):
    zones = _zones(cloud, headers=DEMO)  # anyone may list
    assert zones == {"nova": {"zoneName": "nova", "zoneState": {"available": True},
                              "hosts": None}}
    rack = _create(cloud, "rack1", "az1")["id"]
    assert set(_zones(cloud)) == {"nova"}  # a zone without hosts is no zone yet
    _ok(_action(cloud, rack, "add_host", {"host": "compute1"}))
    assert set(_zones(cloud)) == {"az1", "nova"}
    detail = _zones(cloud, "/os-availability-zone/detail")
    assert set(detail) == {"az1", "nova", "internal"}
    assert list(detail["az1"]["hosts"]) == ["compute1"]
    compute = detail["az1"]["hosts"]["compute1"]["novalite-compute"]
    assert compute["available"] is True and compute["active"] is True
    assert compute["updated_at"] is None or compute["updated_at"][10] == "T"
    internal = {binary for services in detail["internal"]["hosts"].values()
                for binary in services}
    assert internal == {"novalite-conductor", "novalite-scheduler"}  # not the API
    with session.writer() as s:
        s.execute(update(models.Service).where(models.Service.host == "compute1")
                  .values(disabled=True))
    zones = _zones(cloud)
    assert zones["az1"]["zoneState"] == {"available": False} and zones["az1"]["hosts"] is None
    assert _zones(cloud, "/os-availability-zone/detail")["az1"]["hosts"] is None


@pytest.fixture
def tenant_cloud(conf, cloud_factory):
    conf.set_override("enabled_filters", TENANT_FILTERS, group="filter_scheduler")
    return cloud_factory(hosts=3)


def _host(cloud, server_id):
    return cloud.wait_status(server_id, "ACTIVE", "ERROR")["OS-EXT-SRV-ATTR:host"]


def test_placement_follows_zones_and_metadata_set_through_the_api(tenant_cloud):
    cloud = tenant_cloud
    zoned = _create(cloud, "edge", "az-edge")["id"]
    _ok(_action(cloud, zoned, "add_host", {"host": "compute3"}))
    server = cloud.wait_status(cloud.boot("edge-vm", availability_zone="az-edge"), "ACTIVE")
    assert server["OS-EXT-SRV-ATTR:host"] == "compute3"
    assert server["OS-EXT-AZ:availability_zone"] == "az-edge"
    # compute1 and compute2 become the special project's alone
    private = _create(cloud, "private")["id"]
    for host in ("compute1", "compute2"):
        _ok(_action(cloud, private, "add_host", {"host": host}))
    _ok(_action(cloud, private, "set_metadata", {"metadata": {
        "filter_tenant_id": "special"}}))
    body = {"server": {"name": "other", "flavorRef": "1", "imageRef": server["image"]["id"]}}
    others = [cloud.api.post("/servers", json=body, headers=DEMO).json()["server"]["id"]
              for _ in range(3)]
    assert {_host(cloud, s) for s in others} == {"compute3"}
    specials = [cloud.api.post("/servers", json=body, headers={
        "X-Auth-Token": "alice:special"}).json()["server"]["id"] for _ in range(3)]
    assert {_host(cloud, s) for s in specials} <= {"compute1", "compute2", "compute3"}
    # the key removed, the other projects may use every host again
    _ok(_action(cloud, private, "remove_host", {"host": "compute2"}))
    _ok(_action(cloud, private, "set_metadata", {"metadata": {"filter_tenant_id": None}}))
    _ok(_action(cloud, zoned, "set_metadata", {"metadata": {"filter_tenant_id": "nobody"}}))
    later = [cloud.api.post("/servers", json=body, headers=DEMO).json()["server"]["id"]
             for _ in range(4)]
    assert {_host(cloud, s) for s in later} <= {"compute1", "compute2"}  # all ACTIVE
