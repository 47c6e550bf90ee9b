"""The metadata API as the network node's proxy calls it: the instance named and signed,
the OpenStack tree and the EC2 paths served, a guest's password taken once and shown by
os-server-password, a bad or missing signature refused."""

from __future__ import annotations

import base64
import json

import httpx
import pytest

from novalite.instance_metadata import sign

SCRIPT = b"#!/bin/sh\necho hi\n"


@pytest.fixture
def server(cloud):
    keypair = cloud.api.post("/os-keypairs", json={"keypair": {"name": "k"}}).json()["keypair"]
    server_id = cloud.boot("meta-vm", key_name="k",
                           user_data=base64.b64encode(SCRIPT).decode())
    found = cloud.wait_status(server_id, "ACTIVE")
    return {"id": server_id, "project": found["tenant_id"], "key": keypair["public_key"]}


def _signed(server: dict, **headers: str) -> dict[str, str]:
    return {"X-Instance-ID": server["id"], "X-Tenant-ID": server["project"],
            "X-Instance-ID-Signature": sign(server["id"], ""), **headers}


def _get(cloud, path: str, server: dict, **headers: str) -> httpx.Response:
    return httpx.get(f"{cloud.base_url}/metadata{path}", headers=_signed(server, **headers),
                     timeout=10)


def _post(cloud, path: str, server: dict, body: bytes, **headers: str) -> httpx.Response:
    return httpx.post(f"{cloud.base_url}/metadata{path}", content=body,
                      headers=_signed(server, **headers), timeout=10)


def test_the_openstack_tree_names_the_server_its_key_and_its_user_data(cloud, server):
    listing = _get(cloud, "/openstack/latest", server)
    assert listing.text.splitlines() == ["meta_data.json", "network_data.json", "user_data",
                                         "password", "vendor_data.json", "vendor_data2.json"]
    assert "password" not in _get(cloud, "/openstack/2012-08-10", server).text.splitlines()
    meta = json.loads(_get(cloud, "/openstack/latest/meta_data.json", server).text)
    assert meta["uuid"] == server["id"] and meta["hostname"] == "meta-vm"
    assert meta["public_keys"] == {"k": server["key"]}
    assert _get(cloud, "/openstack/2013-10-17/user_data", server).content == SCRIPT
    assert "latest" in _get(cloud, "/openstack", server).text.splitlines()


def test_the_ec2_paths_answer_what_cloud_init_reads(cloud, server):
    assert _get(cloud, "/latest/meta-data/instance-id", server).text == server["id"]
    assert "hostname" in _get(cloud, "/latest/meta-data/", server).text.splitlines()
    assert _get(cloud, "/latest/meta-data/public-keys/", server).text == "0=k"
    assert _get(cloud, "/latest/meta-data/public-keys/0/openssh-key",
                server).text == server["key"]
    assert _get(cloud, "/2009-04-04/user-data", server).content == SCRIPT


@pytest.mark.parametrize("headers, status", [
    ({"X-Instance-ID-Signature": "0" * 64}, 403),
    ({"X-Instance-ID": ""}, 400),
    ({"X-Tenant-ID": "someone-else"}, 404),
])
def test_an_unsigned_or_foreign_request_is_refused(cloud, server, headers, status):
    response = _get(cloud, "/openstack/latest/meta_data.json", server, **headers)
    assert response.status_code == status


def test_the_signature_uses_the_configured_secret(cloud, server, conf):
    conf.set_override("metadata_proxy_shared_secret", "s3cret", group="neutron")
    assert _get(cloud, "/openstack/latest/meta_data.json", server).status_code == 403
    signed = {"X-Instance-ID-Signature": sign(server["id"], "s3cret")}
    assert _get(cloud, "/openstack/latest/meta_data.json", server, **signed).status_code == 200


def test_a_guest_posts_its_password_once_and_its_owner_reads_and_clears_it(cloud, server):
    path = "/openstack/latest/password"
    shown = f"/servers/{server['id']}/os-server-password"
    assert _get(cloud, path, server).text == ""
    encrypted = "x" * 1000  # Nova keeps up to four chunks of 255 characters
    assert _post(cloud, path, server, encrypted.encode()).status_code == 200
    assert _get(cloud, "/openstack/2013-04-04/password", server).text == encrypted
    assert cloud.api.get(shown).json() == {"password": encrypted}
    assert _post(cloud, path, server, b"another").status_code == 409  # one is kept
    assert cloud.api.delete(shown).status_code == 204
    assert cloud.api.get(shown).json() == {"password": ""}
    assert _post(cloud, path, server, b"another").status_code == 200  # cleared: again
    assert cloud.api.get(shown).json() == {"password": "another"}


def test_a_password_too_large_unsigned_or_before_its_version_is_refused(cloud, server):
    path = "/openstack/latest/password"
    assert _post(cloud, path, server, b"x" * 1021).status_code == 400
    assert _post(cloud, path, server, b"x",
                 **{"X-Instance-ID-Signature": "0" * 64}).status_code == 403
    assert _post(cloud, "/openstack/2012-08-10/password", server, b"x").status_code == 404
    assert cloud.api.get(f"/servers/{server['id']}/os-server-password").json() == {
        "password": ""}
