import os
from pathlib import Path

import yaml

from novalite.identity import bootstrap, catalog, clouds_yaml, resource, roles, users


def _counts() -> tuple[int, ...]:
    return (len(resource.list_projects()), len(users.list_users()), len(roles.list_roles()),
            len(roles.list_assignments()), len(catalog.list_endpoints()))


def test_bootstrap_is_idempotent_and_keeps_generated_passwords(db):
    first = bootstrap.bootstrap("http://cloud.test:1")
    counts = _counts()
    assert counts == (3, 2, 4, 2, 21)  # endpoints: 7 services x 3 interfaces
    second = bootstrap.bootstrap("http://cloud.test:1")
    assert _counts() == counts
    assert second.passwords == first.passwords
    assert os.stat(first.clouds_yaml).st_mode & 0o777 == 0o600
    clouds = yaml.safe_load(Path(first.clouds_yaml).read_text())["clouds"]
    assert clouds["novalite"]["auth"]["username"] == "demo"
    assert clouds["novalite-admin"]["auth"]["password"] == first.passwords["admin"]


def test_configured_passwords_win_and_a_new_address_moves_the_catalog(db, conf):
    bootstrap.bootstrap("http://cloud.test:1")
    conf.set_override("admin_password", "configured", group="identity")
    result = bootstrap.bootstrap("http://cloud.test:2")
    assert result.passwords["admin"] == "configured"
    users.authenticate(None, "admin", "default", "configured")
    urls = {e["url"] for e in catalog.list_endpoints()}
    assert urls == {f"http://cloud.test:2{path}" for _, path in bootstrap.SERVICES.values()}
    assert clouds_yaml.saved_passwords()["admin"] == "configured"


def test_base_url_prefers_public_endpoint(conf):
    assert bootstrap.base_url(8774) == "http://127.0.0.1:8774"
    conf.set_override("public_endpoint", "https://cloud.example/", group="api")
    assert bootstrap.base_url(8774) == "https://cloud.example"
