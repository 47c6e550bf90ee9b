"""List calls' query over HTTP: filters read as their attribute's type, and Neutron's
400s and 404s for filters, sorts, limits and markers it cannot honour."""

from __future__ import annotations

import pytest

from tests.functional.network.neutron import error


@pytest.mark.parametrize(("query", "kind", "message"), [
    ({"admin_state_up": "foo"}, "InvalidInput",
     "Invalid input for operation: 'foo' cannot be converted to boolean."),
    ({"mtu": "big"}, "InvalidInput", "Invalid input for operation: 'big' is not an integer."),
    ({"colour": "red"}, "HTTPBadRequest", "['colour'] is invalid attribute for filtering"),
    ({"limit": "-1"}, "BadRequest",
     "Bad limit request: Limit must be an integer 0 or greater and not '-1'."),
    ({"limit": "abc"}, "BadRequest",
     "Bad limit request: Limit must be an integer 0 or greater and not 'abc'."),
    ({"sort_key": "colour", "sort_dir": "asc"}, "HTTPBadRequest",
     "['colour'] is invalid attribute for sort_keys"),
    ({"sort_key": "name", "sort_dir": "up"}, "HTTPBadRequest",
     "['up'] is invalid value for sort_dirs, valid value is 'asc' and 'desc'"),
])
def test_a_query_neutron_cannot_read_is_a_400(net, query, kind, message):
    assert error(net.get("/networks", params=query), 400, kind) == message


def test_boolean_and_number_filters_read_as_their_types(net):
    made = net.post("/networks", json={"network": {"name": "down", "admin_state_up": False,
                                                    "mtu": 1400}}).json()["network"]
    for query in ({"admin_state_up": "False"}, {"admin_state_up": "0"},
                  {"mtu": "01400", "name": "down"}):
        assert [n["id"] for n in net.get("/networks", params=query).json()["networks"]] \
            == [made["id"]], query


def test_a_marker_that_is_no_resource_is_its_404(net):
    marker = "6a1cf2a5-0000-4000-8000-000000000000"
    message = error(net.get("/networks", params={"limit": 1, "marker": marker}),
                    404, "NetworkNotFound")
    assert message == f"Network {marker} could not be found."
    error(net.get("/ports", params={"marker": marker}), 404, "PortNotFound")


def test_filters_narrowed_in_sql_read_as_the_records_do(net):
    """What Nova asks on a boot that names no network, and filters the database applies
    alongside others it does not: each reads its value as the attribute's type."""
    made = net.post("/networks", json={"network": {"name": "mine"}}).json()["network"]
    project = made["project_id"]
    for query in ({"project_id": project, "shared": "False", "router:external": "0"},
                  {"tenant_id": project, "name": "mine", "admin_state_up": "True",
                   "port_security_enabled": "true"},
                  {"id": made["id"], "status": "ACTIVE", "shared": ["True", "False"]}):
        found = net.get("/networks", params=query).json()["networks"]
        assert made["id"] in [n["id"] for n in found], query
    for query in ({"project_id": "nobody", "port_security_enabled": "true"},
                  {"id": made["id"], "shared": "True"}):
        assert net.get("/networks", params=query).json()["networks"] == [], query
    assert error(net.get("/networks", params={"shared": "maybe"}), 400, "InvalidInput") \
        == "Invalid input for operation: 'maybe' cannot be converted to boolean."
