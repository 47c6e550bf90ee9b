"""GET /servers/{id}/topology (2.78) through real HTTP, with the shape of Nova's response
schema: the guest NUMA nodes a server's flavor asks for, none when it asks for none."""

import jsonschema

MV = "X-OpenStack-Nova-API-Version"
ADMIN: dict = {}  # the cloud fixture's client is an admin

# Nova's index_response (nova/api/openstack/compute/schemas/server_topology.py)
_NODE = {"type": "object", "additionalProperties": False,
         "required": ["memory_mb", "siblings", "vcpu_set"],
         "properties": {"cpu_pinning": {"type": "object"}, "host_node": {"type": "integer"},
                        "memory_mb": {"type": "integer"},
                        "siblings": {"type": "array", "items": {"type": "array"}},
                        "vcpu_set": {"type": "array", "items": {"type": "integer"}}}}
SCHEMA = {"type": "object", "additionalProperties": False, "required": ["nodes", "pagesize_kb"],
          "properties": {"nodes": {"type": "array", "items": _NODE},
                         "pagesize_kb": {"type": ["integer", "null"]}}}


def _topology(cloud, server_id, version="2.78", who=ADMIN):
    return cloud.api.get(f"/servers/{server_id}/topology", headers={MV: version, **who})


def _flavor(cloud, specs):
    flavor = cloud.api.post("/flavors", json={"flavor": {
        "name": "numa", "ram": 256, "vcpus": 4, "disk": 1}}).json()["flavor"]
    cloud.api.post(f"/flavors/{flavor['id']}/os-extra_specs", json={"extra_specs": specs})
    return flavor["id"]


def test_a_server_without_numa_needs_has_no_nodes(cloud):
    server_id = cloud.boot()
    cloud.wait_status(server_id, "ACTIVE")
    shown = _topology(cloud, server_id)
    assert shown.status_code == 200, shown.text
    jsonschema.validate(shown.json(), SCHEMA)
    assert shown.json() == {"nodes": [], "pagesize_kb": None}
    assert _topology(cloud, server_id, "2.77").status_code == 404


def test_the_guest_nodes_the_flavor_asks_for(cloud):
    flavor = _flavor(cloud, {"hw:numa_nodes": "2", "hw:mem_page_size": "4"})
    server_id = cloud.boot(flavor=flavor)
    cloud.wait_status(server_id, "ACTIVE", "ERROR")
    body = _topology(cloud, server_id).json()
    jsonschema.validate(body, SCHEMA)
    assert body == {"nodes": [{"vcpu_set": [0, 1], "siblings": [], "memory_mb": 128},
                           {"vcpu_set": [2, 3], "siblings": [], "memory_mb": 128}],
                    "pagesize_kb": 4}


def test_another_projects_server_is_not_found(cloud):
    server_id = cloud.boot()
    missing = _topology(cloud, server_id, who={"X-Auth-Token": "bob:proj2"})
    assert missing.status_code == 404
