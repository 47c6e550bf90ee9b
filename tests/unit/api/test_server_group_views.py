import pytest
from tempest.lib.api_schema.response.compute.v2_1 import server_groups as tempest_v2_1
from tempest.lib.api_schema.response.compute.v2_13 import server_groups as tempest_v2_13
from tempest.lib.api_schema.response.compute.v2_64 import server_groups as tempest_v2_64
from tempest.lib.common import jsonschema_validator

from novalite.api.compute.views import server_groups as view

GROUP = {"id": 4, "uuid": "5bbcc3c4-1da2-4437-a48a-66f15b1b13f9", "name": "web",
         "project_id": "p1", "user_id": "u1", "policy": "anti-affinity",
         "rules": {"max_server_per_host": 2},
         "members": ["2dd19b5d-5be5-4fb5-94f1-51e0c6c3c1e7"], "created_at": None}


def _tempest(body: dict, schema: dict) -> None:
    """As tempest's rest client validates: strict Draft 4 with its format checker."""
    jsonschema_validator.JSONSCHEMA_VALIDATOR(
        schema["response_body"], format_checker=jsonschema_validator.FORMAT_CHECKER
    ).validate(body)


@pytest.mark.parametrize(("version", "schemas"), [((2, 1), tempest_v2_1),
                                                  ((2, 13), tempest_v2_13),
                                                  ((2, 15), tempest_v2_13),
                                                  ((2, 64), tempest_v2_64),
                                                  ((2, 74), tempest_v2_64)])
def test_views_match_tempests_schemas(version, schemas):
    shown = view.show(GROUP, version)
    _tempest({"server_group": shown}, schemas.create_show_server_group)
    _tempest({"server_groups": [shown]}, schemas.list_server_groups)


def test_fields_by_microversion():
    assert view.show(GROUP, (2, 1)) == {
        "id": GROUP["uuid"], "name": "web", "policies": ["anti-affinity"],
        "members": GROUP["members"], "metadata": {}}
    assert view.show(GROUP, (2, 13))["project_id"] == "p1"
    assert view.show(GROUP, (2, 64)) == {
        "id": GROUP["uuid"], "name": "web", "policy": "anti-affinity",
        "rules": {"max_server_per_host": 2}, "members": GROUP["members"],
        "project_id": "p1", "user_id": "u1"}
