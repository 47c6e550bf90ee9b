"""os-migrations views at each microversion against tempest's schemas, 2.80's included
(the API's maximum is below it, so only this test reaches it)."""

import datetime
import importlib

import pytest
from tempest.lib.common import jsonschema_validator

from novalite.api.compute.views import migrations as view
from novalite.api.request import ApiRequest
from novalite.context import get_admin_context

ROW = {"id": 7, "uuid": "3f6a3c1e-8a9b-4c2d-9e0f-1a2b3c4d5e6f", "status": "finished",
       "instance_uuid": "b1c2d3e4-f5a6-4b7c-8d9e-0f1a2b3c4d5e", "source_node": "compute1",
       "source_compute": "compute1", "dest_node": "compute2", "dest_compute": "compute2",
       "dest_host": "127.0.0.1", "old_instance_type_id": 1, "new_instance_type_id": 2,
       "migration_type": "resize", "user_id": "u1", "project_id": "p1", "hidden": False,
       "created_at": datetime.datetime(2026, 11, 23, 23, 0, 0, 123456),
       "updated_at": None}


def _req(version):
    return ApiRequest(get_admin_context(), version, {}, {}, None, "http://h/compute")


@pytest.mark.parametrize("version,package", [((2, 1), "v2_1"), ((2, 23), "v2_23"),
                                             ((2, 59), "v2_59"), ((2, 80), "v2_80")])
def test_list_view_matches_tempest(version, package):
    schema = importlib.import_module(
        f"tempest.lib.api_schema.response.compute.{package}.migrations").list_migrations
    body = {"migrations": [view.migration(_req(version), ROW)]}
    jsonschema_validator.JSONSCHEMA_VALIDATOR(
        schema["response_body"], format_checker=jsonschema_validator.FORMAT_CHECKER
    ).validate(body)
    assert body["migrations"][0]["created_at"] == "2026-11-23T23:00:00.123456"


def test_only_a_live_migration_under_way_has_links():
    live = {**ROW, "migration_type": "live-migration", "status": "running"}
    assert "links" in view.migration(_req((2, 23)), live)
    assert "links" not in view.migration(_req((2, 23)), ROW)
