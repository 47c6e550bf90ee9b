"""Flavor management, flavor access and extra specs through HTTP, as the openstack client
drives them: `flavor create/set/unset/show/list/delete`, private flavors and projects."""

from __future__ import annotations

import uuid

import pytest
from tempest.lib.api_schema.response.compute.v2_1 import flavors as tempest_v2_1
from tempest.lib.api_schema.response.compute.v2_1 import flavors_access as tempest_access
from tempest.lib.api_schema.response.compute.v2_1 import flavors_extra_specs as tempest_specs
from tempest.lib.api_schema.response.compute.v2_55 import flavors as tempest_v2_55
from tempest.lib.api_schema.response.compute.v2_61 import flavors as tempest_v2_61
from tempest.lib.common import jsonschema_validator

from novalite.db.api import aggregates
from novalite.image import db as images

USER = {"X-Auth-Token": "alice:project-b"}
OTHER = {"X-Auth-Token": "bob:project-c"}


def _at(version: str, **headers: str) -> dict:
    return {"OpenStack-API-Version": f"compute {version}", **headers}


def _create(cloud, headers: dict | None = None, **flavor) -> dict:
    body = {"flavor": {"name": "f1", "ram": 128, "vcpus": 1, "disk": 1, **flavor}}
    response = cloud.api.post("/flavors", json=body, headers=headers or {})
    assert response.status_code == 200, response.text
    return response.json()["flavor"]


def _fault(response, code: int) -> str:
    assert response.status_code == code, response.text
    (body,) = response.json().values()
    assert body["code"] == code
    return body["message"]


# --- create, show, list, delete -------------------------------------------------------

def test_create_show_list_delete(cloud):
    flavor = _create(cloud, swap=512, rxtx_factor=2.5, **{"OS-FLV-EXT-DATA:ephemeral": 2})
    assert str(uuid.UUID(flavor["id"])) == flavor["id"]  # generated when absent
    assert flavor == {
        "id": flavor["id"], "name": "f1", "ram": 128, "vcpus": 1, "disk": 1, "swap": 512,
        "rxtx_factor": 2.5, "OS-FLV-EXT-DATA:ephemeral": 2,
        "OS-FLV-DISABLED:disabled": False, "os-flavor-access:is_public": True,
        "links": flavor["links"]}
    assert flavor["links"][0]["href"].endswith(f"/compute/v2.1/flavors/{flavor['id']}")
    assert cloud.api.get(f"/flavors/{flavor['id']}").json()["flavor"] == flavor
    assert flavor in cloud.api.get("/flavors/detail").json()["flavors"]
    listed = cloud.api.get("/flavors", headers=USER).json()["flavors"]
    assert {"id": flavor["id"], "name": "f1", "links": flavor["links"]} in listed

    deleted = cloud.api.delete(f"/flavors/{flavor['id']}")
    assert deleted.status_code == 202 and deleted.content == b""
    assert _fault(cloud.api.get(f"/flavors/{flavor['id']}"), 404) == \
        f"Flavor {flavor['id']} could not be found."
    assert _fault(cloud.api.delete(f"/flavors/{flavor['id']}"), 404) == \
        f"Flavor {flavor['id']} could not be found."


def test_create_takes_an_id_and_strings_as_nova_does(cloud):
    flavor = _create(cloud, id="my.flavor-1", ram="256", vcpus="2", disk="0", swap=0,
                     rxtx_factor="1.5", **{"os-flavor-access:is_public": "False"})
    assert (flavor["id"], flavor["ram"], flavor["vcpus"], flavor["disk"]) == \
        ("my.flavor-1", 256, 2, 0)
    assert flavor["swap"] == "" and flavor["rxtx_factor"] == 1.5
    assert flavor["os-flavor-access:is_public"] is False
    numeric = _create(cloud, name="numeric", id=43)
    assert numeric["id"] == "43"
    assert _create(cloud, name="null-id", id=None)["id"] != "None"


def test_listing_is_ordered_by_id_and_filters_by_size(cloud):
    _create(cloud, name="big", id="6", ram=100000, disk=500)
    ids = [f["id"] for f in cloud.api.get("/flavors").json()["flavors"]]
    assert ids == ["1", "2", "3", "4", "42", "5", "6", "84"]  # string order, as Nova
    big = cloud.api.get("/flavors/detail", params={"minRam": 20000, "minDisk": 200})
    assert [f["name"] for f in big.json()["flavors"]] == ["big"]
    assert _fault(cloud.api.get("/flavors", params={"minRam": "lots"}), 400) == \
        "Invalid minRam filter [lots]"


@pytest.mark.parametrize(("flavor", "message"), [
    ({"ram": 0}, "0 is less than the minimum of 1"),
    ({"ram": "0"}, "Invalid input received: ram must be >= 1"),
    ({"vcpus": "0"}, "Invalid input received: vcpus must be >= 1"),
    ({"disk": -1}, "-1 is less than the minimum of 0"),
    ({"swap": "x"}, "does not match"),
    ({"ram": 2 ** 31}, "is greater than the maximum of 2147483647"),
    ({"ram": str(2 ** 31)}, "Invalid input received: ram must be <= 2147483647"),
    ({"ram": 1.5}, "is not of type 'integer', 'string'"),
    ({"rxtx_factor": 0}, "less than or equal to the minimum of 0"),
    ({"rxtx_factor": "0.0"},
     "Invalid input received: 'rxtx_factor' argument must be a float between 0 and "
     "3.40282e+38"),
    ({"name": " padded"}, "An invalid 'name' value was provided. The name must be: "
                          "printable characters. Can not start or end with whitespace."),
    ({"name": "tab\tin"}, "An invalid 'name' value was provided."),
    ({"name": ""}, "should be non-empty"),
    ({"id": "no/slash"}, "does not match"),
    ({"os-flavor-access:is_public": "maybe"}, "is not one of"),
    ({"description": "only from 2.55"}, "Additional properties are not allowed"),
    ({"vcpus": None}, "None is not of type"),
])
def test_bad_create_bodies_are_400(cloud, flavor, message):
    body = {"flavor": {"name": "bad", "ram": 128, "vcpus": 1, "disk": 1, **flavor}}
    assert message in _fault(cloud.api.post("/flavors", json=body), 400)


def test_create_needs_the_required_fields_and_a_body(cloud):
    body = {"flavor": {"name": "x", "ram": 128, "vcpus": 1}}
    assert "'disk' is a required property" in _fault(cloud.api.post("/flavors", json=body),
                                                     400)
    assert "'flavor' is a required property" in _fault(cloud.api.post("/flavors", json={}),
                                                       400)


def test_duplicates_are_409_naming_the_id_first(cloud):
    taken_name = {"flavor": {"name": "m1.tiny", "ram": 1, "vcpus": 1, "disk": 0}}
    assert _fault(cloud.api.post("/flavors", json=taken_name), 409) == \
        "Flavor with name m1.tiny already exists."
    taken_id = {"flavor": {"name": "m1.tiny", "id": "1", "ram": 1, "vcpus": 1, "disk": 0}}
    assert _fault(cloud.api.post("/flavors", json=taken_id), 409) == \
        "Flavor with ID 1 already exists."


def test_only_admins_manage_flavors(cloud):
    body = {"flavor": {"name": "mine", "ram": 1, "vcpus": 1, "disk": 0}}
    assert _fault(cloud.api.post("/flavors", json=body, headers=USER), 403) == \
        "Policy doesn't allow os_compute_api:os-flavor-manage:create to be performed."
    assert "os-flavor-manage:delete" in _fault(cloud.api.delete("/flavors/1", headers=USER),
                                               403)
    described = cloud.api.put("/flavors/1", json={"flavor": {"description": "x"}},
                              headers=_at("2.55", **USER))
    assert "os-flavor-manage:update" in _fault(described, 403)
    assert cloud.api.get("/flavors/1", headers=USER).status_code == 200


# --- microversions --------------------------------------------------------------------

def test_description_from_2_55(cloud):
    flavor = _create(cloud, headers=_at("2.55"), description="small and quick")
    assert flavor["description"] == "small and quick" and "extra_specs" not in flavor
    listed = cloud.api.get("/flavors", headers=_at("2.55")).json()["flavors"]
    assert {"id": flavor["id"], "name": "f1", "description": "small and quick",
            "links": flavor["links"]} in listed
    assert "description" not in cloud.api.get(f"/flavors/{flavor['id']}").json()["flavor"]

    updated = cloud.api.put(f"/flavors/{flavor['id']}", headers=_at("2.55"),
                            json={"flavor": {"description": None}})
    assert updated.status_code == 200 and updated.json()["flavor"]["description"] is None
    old = cloud.api.put(f"/flavors/{flavor['id']}", json={"flavor": {"description": "x"}})
    assert _fault(old, 404) == "The resource could not be found."
    renamed = cloud.api.put(f"/flavors/{flavor['id']}", headers=_at("2.55"),
                            json={"flavor": {"name": "f2", "description": "x"}})
    assert "Additional properties are not allowed" in _fault(renamed, 400)
    missing = cloud.api.put("/flavors/nope", headers=_at("2.55"),
                            json={"flavor": {"description": "x"}})
    assert _fault(missing, 404) == "Flavor nope could not be found."
    control = cloud.api.put(f"/flavors/{flavor['id']}", headers=_at("2.55"),
                            json={"flavor": {"description": "two\nlines"}})
    assert "does not match" in _fault(control, 400)


def test_extra_specs_in_views_from_2_61(cloud):
    created = _create(cloud, headers=_at("2.61"))
    assert created["extra_specs"] == {}
    fid = created["id"]
    cloud.api.post(f"/flavors/{fid}/os-extra_specs",
                   json={"extra_specs": {"hw:cpu_policy": "dedicated"}})
    shown = cloud.api.get(f"/flavors/{fid}", headers=_at("2.61", **USER)).json()["flavor"]
    assert shown["extra_specs"] == {"hw:cpu_policy": "dedicated"}
    detail = cloud.api.get("/flavors/detail", headers=_at("2.61")).json()["flavors"]
    assert next(f for f in detail if f["id"] == fid)["extra_specs"] == \
        {"hw:cpu_policy": "dedicated"}
    assert all("extra_specs" not in f for f in
               cloud.api.get("/flavors", headers=_at("2.61")).json()["flavors"])
    assert "extra_specs" not in cloud.api.get(f"/flavors/{fid}",
                                              headers=_at("2.60")).json()["flavor"]
    updated = cloud.api.put(f"/flavors/{fid}", headers=_at("2.61"),
                            json={"flavor": {"description": "pinned"}}).json()["flavor"]
    assert updated["extra_specs"] == {"hw:cpu_policy": "dedicated"}


def _tempest(response, schema: dict) -> None:
    """As tempest's rest client checks a response: the status, then the strict body."""
    assert response.status_code in schema["status_code"], response.text
    if "response_body" in schema:
        jsonschema_validator.JSONSCHEMA_VALIDATOR(
            schema["response_body"], format_checker=jsonschema_validator.FORMAT_CHECKER
        ).validate(response.json())


@pytest.mark.parametrize(("version", "schemas"), [("2.1", tempest_v2_1),
                                                  ("2.55", tempest_v2_55),
                                                  ("2.61", tempest_v2_61)])
def test_responses_pass_tempests_checks(cloud, version, schemas):
    at = _at(version)
    flavor = {"name": "t", "ram": 64, "vcpus": 1, "disk": 0,
              "os-flavor-access:is_public": False}
    created = cloud.api.post("/flavors", json={"flavor": flavor}, headers=at)
    _tempest(created, schemas.create_update_get_flavor_details)
    fid = created.json()["flavor"]["id"]
    specs = f"/flavors/{fid}/os-extra_specs"
    _tempest(cloud.api.post(specs, json={"extra_specs": {"k": "v"}}, headers=at),
             tempest_specs.set_get_flavor_extra_specs)
    _tempest(cloud.api.get(specs, headers=at), tempest_specs.set_get_flavor_extra_specs)
    _tempest(cloud.api.put(f"{specs}/k", json={"k": "w"}, headers=at),
             tempest_specs.set_get_flavor_extra_specs_key)
    _tempest(cloud.api.get(f"{specs}/k", headers=at),
             tempest_specs.set_get_flavor_extra_specs_key)
    _tempest(cloud.api.get(f"/flavors/{fid}", headers=at),
             schemas.create_update_get_flavor_details)
    _tempest(cloud.api.get("/flavors/detail", headers=at), schemas.list_flavors_details)
    _tempest(cloud.api.get("/flavors", headers=at), schemas.list_flavors)
    if version != "2.1":
        _tempest(cloud.api.put(f"/flavors/{fid}", json={"flavor": {"description": "d"}},
                               headers=at), schemas.create_update_get_flavor_details)
    for action in ("addTenantAccess", "removeTenantAccess"):
        _tempest(_access(cloud, fid, action, "p1", at),
                 tempest_access.add_remove_list_flavor_access)
    _tempest(cloud.api.get(f"/flavors/{fid}/os-flavor-access", headers=at),
             tempest_access.add_remove_list_flavor_access)
    _tempest(cloud.api.delete(f"{specs}/k", headers=at),
             tempest_specs.unset_flavor_extra_specs)
    _tempest(cloud.api.delete(f"/flavors/{fid}", headers=at), schemas.delete_flavor)


# --- private flavors and access -------------------------------------------------------

def _access(cloud, fid: str, action: str, tenant: str, headers: dict | None = None):
    return cloud.api.post(f"/flavors/{fid}/action", json={action: {"tenant": tenant}},
                          headers=headers or {})


def test_private_flavor_is_seen_and_used_only_by_projects_given_access(cloud):
    fid = _create(cloud, name="secret", **{"os-flavor-access:is_public": False})["id"]
    assert fid not in [f["id"] for f in cloud.api.get("/flavors").json()["flavors"]]
    every = cloud.api.get("/flavors", params={"is_public": "None"}).json()["flavors"]
    assert fid in [f["id"] for f in every]
    private = cloud.api.get("/flavors", params={"is_public": "false"}).json()["flavors"]
    assert [f["id"] for f in private] == [fid]
    assert _fault(cloud.api.get(f"/flavors/{fid}", headers=USER), 404) == \
        f"Flavor {fid} could not be found."
    assert _fault(cloud.api.get(f"/flavors/{fid}/os-extra_specs", headers=USER), 404)

    granted = _access(cloud, fid, "addTenantAccess", "project-b")
    assert granted.status_code == 200
    assert granted.json() == {"flavor_access": [{"flavor_id": fid, "tenant_id": "project-b"}]}
    assert cloud.api.get(f"/flavors/{fid}/os-flavor-access").json() == granted.json()
    for params in ({}, {"is_public": "none"}, {"is_public": "false"}):  # users can't widen
        listed = cloud.api.get("/flavors", params=params, headers=USER).json()["flavors"]
        assert fid in [f["id"] for f in listed] and len(listed) == 8
    assert cloud.api.get(f"/flavors/{fid}", headers=USER).status_code == 200
    assert fid not in [f["id"] for f in
                       cloud.api.get("/flavors", headers=OTHER).json()["flavors"]]

    boot = {"server": {"name": "vm", "flavorRef": fid, "imageRef": images.DEFAULT_IMAGE_ID}}
    assert _fault(cloud.api.post("/servers", json=boot, headers=OTHER), 400) == \
        f"Flavor '{fid}' could not be found."
    assert cloud.api.post("/servers", json=boot, headers=USER).status_code == 202

    assert _fault(_access(cloud, fid, "addTenantAccess", "project-b"), 409) == (
        f"Flavor access already exists for flavor {fid} and project project-b combination.")
    removed = _access(cloud, fid, "removeTenantAccess", "project-b")
    assert removed.status_code == 200 and removed.json() == {"flavor_access": []}
    assert _fault(_access(cloud, fid, "removeTenantAccess", "project-b"), 404) == \
        f"Flavor access not found for {fid} / project-b combination."
    assert cloud.api.get(f"/flavors/{fid}", headers=USER).status_code == 404


def test_flavor_access_errors(cloud):
    fid = _create(cloud, name="secret", **{"os-flavor-access:is_public": False})["id"]
    assert _fault(cloud.api.get("/flavors/1/os-flavor-access"), 404) == \
        "Access list not available for public flavors."
    assert _fault(cloud.api.get("/flavors/nope/os-flavor-access"), 404) == \
        "Flavor nope could not be found."
    assert _fault(_access(cloud, "1", "addTenantAccess", "p", _at("2.7")), 409) == \
        "Can not add access to a public flavor."
    assert _access(cloud, "1", "addTenantAccess", "p").status_code == 200  # 2.1 let it be
    assert _fault(_access(cloud, "nope", "addTenantAccess", "p"), 404) == \
        "Flavor nope could not be found."
    assert _fault(_access(cloud, "nope", "removeTenantAccess", "p"), 404) == \
        "Flavor nope could not be found."
    assert _fault(cloud.api.post(f"/flavors/{fid}/action", json={"reboot": {}}), 400) == \
        "There is no such action: reboot"
    assert _fault(cloud.api.post(f"/flavors/{fid}/action", json={}), 400) == \
        "Malformed request body"
    assert "'tenant' is a required property" in _fault(
        cloud.api.post(f"/flavors/{fid}/action", json={"addTenantAccess": {}}), 400)
    assert "should be non-empty" in _fault(_access(cloud, fid, "addTenantAccess", ""), 400)
    for action, rule in (("addTenantAccess", "add"), ("removeTenantAccess", "remove")):
        assert f"os-flavor-access:{rule}_tenant_access" in _fault(
            _access(cloud, fid, action, "project-b", USER), 403)
    assert _fault(cloud.api.get(f"/flavors/{fid}/os-flavor-access", headers=USER), 403) == \
        "Policy doesn't allow os_compute_api:os-flavor-access to be performed."


def test_delete_takes_access_and_extra_specs_along(cloud):
    fid = _create(cloud, name="gone", **{"os-flavor-access:is_public": False})["id"]
    _access(cloud, fid, "addTenantAccess", "project-b")
    cloud.api.post(f"/flavors/{fid}/os-extra_specs", json={"extra_specs": {"a": "1"}})
    assert cloud.api.delete(f"/flavors/{fid}").status_code == 202
    again = _create(cloud, name="gone", id=fid, **{"os-flavor-access:is_public": False})
    assert cloud.api.get(f"/flavors/{again['id']}/os-flavor-access").json() == \
        {"flavor_access": []}
    assert cloud.api.get(f"/flavors/{fid}/os-extra_specs").json() == {"extra_specs": {}}


# --- extra specs ----------------------------------------------------------------------

def test_extra_specs_crud(cloud):
    fid = _create(cloud)["id"]
    base = f"/flavors/{fid}/os-extra_specs"
    assert cloud.api.get(base).json() == {"extra_specs": {}}
    body = {"extra_specs": {"hw:cpu_policy": "dedicated", "quota:cpu_shares": 1024,
                            "ratio": 1.5}}
    created = cloud.api.post(base, json=body)
    assert created.status_code == 200 and created.json() == body  # echoed as sent
    stored = {"hw:cpu_policy": "dedicated", "quota:cpu_shares": "1024", "ratio": "1.5"}
    assert cloud.api.get(base, headers=USER).json() == {"extra_specs": stored}
    assert cloud.api.get(f"{base}/quota:cpu_shares", headers=USER).json() == \
        {"quota:cpu_shares": "1024"}

    merged = cloud.api.post(base, json={"extra_specs": {"hw:cpu_policy": "shared",
                                                        "with space.dot-_": "x"}})
    assert merged.status_code == 200
    assert cloud.api.get(base).json()["extra_specs"] == {
        **stored, "hw:cpu_policy": "shared", "with space.dot-_": "x"}

    put = cloud.api.put(f"{base}/hw:cpu_policy", json={"hw:cpu_policy": "dedicated"})
    assert put.status_code == 200 and put.json() == {"hw:cpu_policy": "dedicated"}
    assert cloud.api.put(f"{base}/new", json={"new": 7}).json() == {"new": 7}
    assert cloud.api.get(f"{base}/new").json() == {"new": "7"}
    assert cloud.api.get(f"{base}/with space.dot-_").json() == {"with space.dot-_": "x"}

    deleted = cloud.api.delete(f"{base}/hw:cpu_policy")
    assert deleted.status_code == 200 and deleted.content == b""
    assert "hw:cpu_policy" not in cloud.api.get(base).json()["extra_specs"]


def test_extra_specs_errors(cloud):
    fid = _create(cloud)["id"]
    base = f"/flavors/{fid}/os-extra_specs"
    assert _fault(cloud.api.get(f"{base}/absent"), 404) == \
        f"Flavor {fid} has no extra specs with key absent."
    assert _fault(cloud.api.delete(f"{base}/absent"), 404) == \
        f"Flavor {fid} has no extra specs with key absent."
    assert _fault(cloud.api.put(f"{base}/a", json={"b": "1"}), 400) == \
        "Request body and URI mismatch"
    assert "has too many properties" in _fault(
        cloud.api.put(f"{base}/a", json={"a": "1", "b": "2"}), 400)
    assert "should be non-empty" in _fault(cloud.api.put(f"{base}/a", json={}), 400)
    bad = [({"extra_specs": {"bad/key": "1"}}, "does not match any of the regexes"),
           ({"extra_specs": {"k" * 256: "1"}}, "does not match any of the regexes"),
           ({"extra_specs": {"k": "v" * 256}}, "is too long"),
           ({"extra_specs": {"k": 10 ** 256}},
            "extra_specs value has 257 characters, more than 255."),
           ({"extra_specs": {"k": True}}, "is not of type 'string', 'number'"),
           ({"extra_specs": {"k": None}}, "is not of type 'string', 'number'"),
           ({"extra_specs": "k=v"}, "is not of type 'object'"),
           ({"specs": {"k": "v"}}, "'extra_specs' is a required property")]
    for body, message in bad:
        assert message in _fault(cloud.api.post(base, json=body), 400), body
    for path in ("/flavors/nope/os-extra_specs", "/flavors/nope/os-extra_specs/k"):
        assert _fault(cloud.api.get(path), 404) == "Flavor nope could not be found."
    assert _fault(cloud.api.post("/flavors/nope/os-extra_specs",
                                 json={"extra_specs": {"k": "v"}}), 404) == \
        "Flavor nope could not be found."
    assert _fault(cloud.api.put("/flavors/nope/os-extra_specs/k", json={"k": "v"}), 404)
    assert _fault(cloud.api.delete("/flavors/nope/os-extra_specs/k"), 404) == \
        "Flavor nope could not be found."


def test_only_admins_write_extra_specs(cloud):
    base = "/flavors/1/os-extra_specs"
    writes = [cloud.api.post(base, json={"extra_specs": {"k": "v"}}, headers=USER),
              cloud.api.put(f"{base}/k", json={"k": "v"}, headers=USER),
              cloud.api.delete(f"{base}/k", headers=USER)]
    for response, rule in zip(writes, ("create", "update", "delete"), strict=True):
        assert _fault(response, 403) == (f"Policy doesn't allow "
                                         f"os_compute_api:os-flavor-extra-specs:{rule} "
                                         "to be performed.")
    assert cloud.api.get(base, headers=USER).status_code == 200


# --- the scheduler sees them ----------------------------------------------------------

@pytest.fixture
def aggregate_cloud(conf, cloud_factory):
    conf.set_override("enabled_filters", ["ComputeFilter", "RamFilter",
                                          "AggregateInstanceExtraSpecsFilter"],
                      group="filter_scheduler")
    return cloud_factory(hosts=3)


def test_extra_specs_steer_and_refuse_placement(aggregate_cloud):
    cloud = aggregate_cloud
    aggregates.aggregate_create("fast", {"ssd": "true"}, ["compute2"])
    fid = _create(cloud, name="ssd")["id"]
    specs = f"/flavors/{fid}/os-extra_specs"
    cloud.api.post(specs, json={"extra_specs": {"aggregate_instance_extra_specs:ssd": "true"}})
    for _ in range(3):
        server = cloud.wait_status(cloud.boot("fast", flavor=fid), "ACTIVE", "ERROR")
        assert server["OS-EXT-SRV-ATTR:host"] == "compute2"

    cloud.api.put(f"{specs}/gpu", json={"gpu": "true"})  # set after create: still seen
    refused = cloud.wait_status(cloud.boot("gpu", flavor=fid), "ERROR")
    assert "AggregateInstanceExtraSpecsFilter removed 3" in refused["fault"]["message"]

    cloud.api.delete(f"{specs}/gpu")  # and an unset too
    assert cloud.wait_status(cloud.boot("again", flavor=fid), "ACTIVE")


def test_swap_is_0_not_empty_from_2_75(cloud):
    flavor = _create(cloud)
    swap = {v: cloud.api.get(f"/flavors/{flavor['id']}", headers=_at(v)).json()["flavor"]
            ["swap"] for v in ("2.74", "2.75")}
    assert swap == {"2.74": "", "2.75": 0}


@pytest.mark.parametrize("path", ["/flavors?foo=1", "/flavors/detail?foo=1",
                                  "/limits?foo=1", "/os-quota-sets/p1?foo=1"])
def test_unknown_query_parameters_are_a_400_from_2_75(cloud, path):
    assert cloud.api.get(path, headers=_at("2.74")).status_code == 200
    refused = cloud.api.get(path, headers=_at("2.75"))
    assert _fault(refused, 400) == "Additional properties are not allowed ('foo' was unexpected)"


@pytest.mark.parametrize(("key", "value", "message"), [
    ("hw:cpu_policy", "fast", "'fast' is not one of: dedicated, shared, mixed."),
    ("hw:numa_nodes", "0", "'0' is less than the min value of '1'."),
    ("hw:numa_nodes", "two", "'two' is not a valid integer value."),
    ("hw:cpu_polcy", "dedicated",
     "extra spec 'hw:cpu_polcy' does not appear to be a valid extra spec."),
    ("trait:NOT_A_TRAIT", "required",
     "extra spec 'trait:NOT_A_TRAIT' does not appear to be a valid extra spec."),
    ("resources1:VCPU", "many", "'many' is not a valid integer value."),
    ("hw_rng:allowed", "perhaps", "'perhaps' is not a valid boolean-like value."),
])
def test_extra_specs_are_checked_against_novas_registry_from_2_86(cloud, key, value,
                                                                  message):
    fid = _create(cloud)["id"]
    specs = f"/flavors/{fid}/os-extra_specs"
    assert cloud.api.post(specs, json={"extra_specs": {key: value}}, headers=_at("2.85")
                          ).status_code == 200
    refused = cloud.api.post(specs, json={"extra_specs": {key: value}}, headers=_at("2.86"))
    assert _fault(refused, 400) == f"Validation failed; {message}"
    one = cloud.api.put(f"{specs}/{key}", json={key: value}, headers=_at("2.86"))
    assert _fault(one, 400) == f"Validation failed; {message}"


def test_valid_and_unknown_namespace_extra_specs_pass_at_2_86(cloud):
    fid = _create(cloud)["id"]
    specs = {"hw:cpu_policy": "dedicated", "hw:numa_cpus.0": "0-1", "hw:numa_mem.0": "64",
             "resources:CUSTOM_GPU": "1", "trait:HW_CPU_X86_AVX2": "required",
             "aggregate_instance_extra_specs:ssd": "true", "my:own": "anything",
             "plain": "x", "capabilities:cpu_info:arch": "x86_64"}
    response = cloud.api.post(f"/flavors/{fid}/os-extra_specs",
                              json={"extra_specs": specs}, headers=_at("2.86"))
    assert response.status_code == 200, response.text
