"""Key pair views against tempest's strict schemas at 2.1 and 2.2 (and later)."""

import datetime

import pytest
from tempest.lib.api_schema.response.compute.v2_1 import keypairs as v21
from tempest.lib.api_schema.response.compute.v2_2 import keypairs as v22
from tempest.lib.common import jsonschema_validator

from novalite.api.compute.views import keypairs as view

KEYPAIR = {"id": 4, "name": "k", "user_id": "u", "fingerprint": "aa:bb", "type": "ssh",
           "public_key": "ssh-ed25519 AAAA", "updated_at": None,
           "created_at": datetime.datetime(2026, 1, 2, 3, 4, 5, 678)}


def _validate(body, schema):
    jsonschema_validator.JSONSCHEMA_VALIDATOR(
        schema["response_body"], format_checker=jsonschema_validator.FORMAT_CHECKER
    ).validate(body)


@pytest.mark.parametrize(("version", "schemas"), [((2, 1), v21), ((2, 2), v22),
                                                  ((2, 10), v22), ((2, 74), v22)])
def test_views_match_tempest(version, schemas):
    _validate(view.create(KEYPAIR, version), schemas.create_keypair)
    _validate(view.create({**KEYPAIR, "private_key": "PEM"}, version), schemas.create_keypair)
    _validate(view.show(KEYPAIR, version), schemas.get_keypair)
    _validate({"keypairs": [view.index_item(KEYPAIR, version)]}, schemas.list_keypairs)
    assert ("type" in view.show(KEYPAIR, version)["keypair"]) == (version >= (2, 2))


def test_show_has_novas_bookkeeping_fields():
    shown = view.show(KEYPAIR, (2, 1))["keypair"]
    assert shown["created_at"] == "2026-01-02T03:04:05.000678"
    assert (shown["id"], shown["deleted"], shown["deleted_at"], shown["updated_at"]) == (
        4, False, None, None)
    assert "private_key" not in view.create(KEYPAIR, (2, 1))["keypair"]
