import pytest
from tempest.lib.api_schema.response.compute.v2_1 import flavors as tempest_v2_1
from tempest.lib.api_schema.response.compute.v2_1 import flavors_access as tempest_access
from tempest.lib.api_schema.response.compute.v2_55 import flavors as tempest_v2_55
from tempest.lib.api_schema.response.compute.v2_61 import flavors as tempest_v2_61
from tempest.lib.common import jsonschema_validator

from novalite.api.compute.views import flavors as view
from tests import builders

BASE = "http://x/compute"


def _flavor(**kw):
    return builders.flavor(**{"flavorid": "7", "name": "f", "swap": 0, "description": "about",
                              "extra_specs": {"hw:cpu_policy": "dedicated"}, **kw})


def test_basic_at_2_1_and_2_55():
    assert view.basic(_flavor(), BASE) == {"id": "7", "name": "f", "links": [
        {"rel": "self", "href": "http://x/compute/v2.1/flavors/7"},
        {"rel": "bookmark", "href": "http://x/compute/flavors/7"}]}
    assert view.basic(_flavor(), BASE, (2, 55))["description"] == "about"


def test_detail_at_2_1_has_the_base_fields_only():
    body = view.detail(_flavor(), BASE, (2, 1), extra_specs=True)
    assert set(body) == {"id", "name", "links", "ram", "disk", "vcpus", "swap",
                         "rxtx_factor", "OS-FLV-EXT-DATA:ephemeral",
                         "OS-FLV-DISABLED:disabled", "os-flavor-access:is_public"}
    assert body["swap"] == "" and body["ram"] == 512 and body["rxtx_factor"] == 1.0
    assert view.detail(_flavor(swap=256), BASE)["swap"] == 256


def test_detail_adds_description_at_2_55_and_extra_specs_at_2_61_when_allowed():
    at_2_55 = view.detail(_flavor(), BASE, (2, 55), extra_specs=True)
    assert at_2_55["description"] == "about" and "extra_specs" not in at_2_55
    at_2_61 = view.detail(_flavor(), BASE, (2, 61), extra_specs=True)
    assert at_2_61["extra_specs"] == {"hw:cpu_policy": "dedicated"}
    assert "extra_specs" not in view.detail(_flavor(), BASE, (2, 61), extra_specs=False)


def test_access_list():
    assert view.access("7", ["p1", "p2"]) == {"flavor_access": [
        {"flavor_id": "7", "tenant_id": "p1"}, {"flavor_id": "7", "tenant_id": "p2"}]}
    assert view.access("7", []) == {"flavor_access": []}


def _tempest(body: dict, schema: dict) -> None:
    """As tempest's rest client validates: strict Draft 4 with its format checker."""
    jsonschema_validator.JSONSCHEMA_VALIDATOR(
        schema["response_body"], format_checker=jsonschema_validator.FORMAT_CHECKER
    ).validate(body)


@pytest.mark.parametrize(("version", "schemas"), [((2, 1), tempest_v2_1),
                                                  ((2, 55), tempest_v2_55),
                                                  ((2, 61), tempest_v2_61)])
def test_views_match_tempests_schemas(version, schemas):
    for flavor in (_flavor(), _flavor(swap=256, description=None, extra_specs={})):
        detail = view.detail(flavor, BASE, version, extra_specs=True)
        _tempest({"flavor": detail}, schemas.create_update_get_flavor_details)
        _tempest({"flavors": [detail]}, schemas.list_flavors_details)
        _tempest({"flavors": [view.basic(flavor, BASE, version)]}, schemas.list_flavors)


def test_access_view_matches_tempests_schema():
    _tempest(view.access("7", ["p1"]), tempest_access.add_remove_list_flavor_access)
