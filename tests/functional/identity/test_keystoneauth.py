"""A real keystoneauth1 session against the in-process cloud: what every OpenStack client
does first (discovery, password auth, catalog lookup) and then a compute call with it."""

from __future__ import annotations

import pytest
import yaml
from keystoneauth1 import exceptions, session
from keystoneauth1.identity import v3

from novalite.identity import clouds_yaml


def _session_from_clouds_yaml(cloud_name: str) -> session.Session:
    with open(clouds_yaml.path()) as f:
        auth = yaml.safe_load(f)["clouds"][cloud_name]["auth"]
    return session.Session(auth=v3.Password(**auth))


def test_password_auth_and_catalog_lookup(identity):
    sess = _session_from_clouds_yaml("novalite")
    base = identity.cloud.base_url
    assert sess.get_endpoint(service_type="compute", interface="public",
                             region_name="RegionOne") == f"{base}/compute/v2.1"
    assert sess.get_endpoint(service_type="identity", interface="public") == (
        f"{base}/identity")
    assert sess.get_project_id()
    access = sess.auth.get_access(sess)
    assert access.username == "demo" and access.project_name == "demo"
    assert set(access.role_names) == {"member", "reader"}
    assert access.service_catalog.url_for(service_type="placement") == f"{base}/placement"


def test_session_reaches_compute(identity):
    sess = _session_from_clouds_yaml("novalite-admin")
    response = sess.get("/flavors", endpoint_filter={"service_type": "compute",
                                                     "interface": "public"})
    assert response.status_code == 200
    assert len(response.json()["flavors"]) == 7


def test_wrong_password_raises_unauthorized(identity):
    auth = v3.Password(auth_url=f"{identity.cloud.base_url}/identity/v3", username="demo",
                       password="wrong", user_domain_name="Default", project_name="demo",
                       project_domain_name="Default")
    with pytest.raises(exceptions.Unauthorized, match="requires authentication"):
        session.Session(auth=auth).get_token()
