import dataclasses
import datetime

import pytest
from tempest.lib.api_schema.response.compute.v2_1 import aggregates as tempest_v2_1
from tempest.lib.api_schema.response.compute.v2_41 import aggregates as tempest_v2_41
from tempest.lib.common import jsonschema_validator

from novalite.api.compute.schemas import aggregates as schema
from novalite.api.compute.schemas import validate
from novalite.api.compute.views import aggregates as view
from novalite.api.faults import HTTPFault
from novalite.objects.aggregate import Aggregate

AGG = Aggregate(id=3, uuid="86a0da0e-9f0c-4f51-a1e0-3c25edab3783", name="rack1",
                hosts=["h1"], metadata={"availability_zone": "london", "ssd": "true"},
                created_at=datetime.datetime(2013, 8, 18, 12, 17, 56, 856455), updated_at=None)


def test_show_is_novas_object_with_uuid_from_2_41():
    shown = view.show(AGG, with_uuid=False)
    assert shown == {"id": 3, "name": "rack1", "availability_zone": "london",
                     "hosts": ["h1"], "metadata": {"availability_zone": "london",
                                                   "ssd": "true"},
                     "created_at": "2013-08-18T12:17:56.856455", "updated_at": None,
                     "deleted_at": None, "deleted": False}
    assert view.show(AGG, with_uuid=True)["uuid"] == AGG.uuid


def _tempest(body: dict, schema: dict) -> None:
    """As tempest's rest client validates: strict Draft 4 with its format checker."""
    jsonschema_validator.JSONSCHEMA_VALIDATOR(
        schema["response_body"], format_checker=jsonschema_validator.FORMAT_CHECKER
    ).validate(body)


@pytest.mark.parametrize(("with_uuid", "schemas"), [(False, tempest_v2_1),
                                                    (True, tempest_v2_41)])
def test_views_match_tempests_schemas(with_uuid, schemas):
    _tempest({"aggregate": view.created(AGG, with_uuid)}, schemas.create_aggregate)
    _tempest({"aggregate": view.show(AGG, with_uuid)}, schemas.get_aggregate)
    # an update stamps updated_at
    updated = dataclasses.replace(AGG, updated_at=datetime.datetime(2026, 1, 2))
    _tempest({"aggregate": view.show(updated, with_uuid)}, schemas.update_aggregate)
    _tempest({"aggregates": [view.show(AGG, with_uuid)]}, schemas.list_aggregates)


def test_created_leaves_out_hosts_and_metadata():
    created = view.created(dataclasses.replace(AGG, metadata={}), with_uuid=True)
    assert "hosts" not in created and "metadata" not in created
    assert created["availability_zone"] is None and created["uuid"] == AGG.uuid


def test_whole_second_timestamps_keep_novas_width():
    assert view.timestamp(datetime.datetime(2026, 1, 1)) == "2026-01-01T00:00:00.000000"


def _error(schema_, body) -> str:
    with pytest.raises(HTTPFault) as err:
        validate(schema_, body)
    assert err.value.code == 400
    return err.value.message


NAME_RULE = ("An invalid 'name' value was provided. The name must be: printable characters. "
             "Can not start or end with whitespace.")


@pytest.mark.parametrize("name", ["rack 1", "émigré", "日本", "a-b_c.d:e"])
def test_printable_names_are_accepted(name):
    validate(schema.create, {"aggregate": {"name": name, "availability_zone": "z 1"}})


@pytest.mark.parametrize("name", [" lead", "trail ", "tab\there", "\u00a0nbsp", "emoji😀"])
def test_names_nova_refuses(name):
    assert _error(schema.create, {"aggregate": {"name": name}}) == NAME_RULE


def test_zone_names_may_not_hold_a_colon():
    assert _error(schema.create, {"aggregate": {"name": "r", "availability_zone": "a:b"}}) \
        == ("An invalid 'name' value was provided. The name must be: printable characters "
            "except :.Can not start or end with whitespace.")


def test_update_takes_padded_names_but_not_blank_ones():
    validate(schema.update, {"aggregate": {"name": "  padded  "}})
    validate(schema.update, {"aggregate": {"availability_zone": None}})
    assert _error(schema.update, {"aggregate": {"name": "   "}}) == (
        "An invalid 'name' value was provided. The name must be: printable characters with "
        "at least one non space character")


def test_metadata_values_may_be_null_but_not_long():
    validate(schema.set_metadata, {"set_metadata": {"metadata": {"k": None, "a.b:c": "v"}}})
    assert "is too long" in _error(schema.set_metadata,
                                   {"set_metadata": {"metadata": {"k": "v" * 256}}})
