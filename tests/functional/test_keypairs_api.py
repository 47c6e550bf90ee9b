"""/os-keypairs through real HTTP: import and generate, per user, across microversions;
boots that name a key pair."""

import base64
import hashlib

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ed25519
from tempest.lib.api_schema.response.compute.v2_1 import keypairs as v21
from tempest.lib.api_schema.response.compute.v2_2 import keypairs as v22
from tempest.lib.common import jsonschema_validator

from novalite.db.api import instances
from novalite.image import db as images

MV = "X-OpenStack-Nova-API-Version"


def _public_key() -> str:
    key = ed25519.Ed25519PrivateKey.generate().public_key()
    return key.public_bytes(serialization.Encoding.OpenSSH,
                            serialization.PublicFormat.OpenSSH).decode() + " me@host"


def _md5(public_key: str) -> str:
    digest = hashlib.md5(base64.b64decode(public_key.split()[1])).hexdigest()
    return ":".join(digest[i:i + 2] for i in range(0, 32, 2))


def _check(schema: dict, response) -> dict:
    assert response.status_code in schema["status_code"], response.text
    if "response_body" in schema:
        jsonschema_validator.JSONSCHEMA_VALIDATOR(
            schema["response_body"], format_checker=jsonschema_validator.FORMAT_CHECKER
        ).validate(response.json())
        return response.json()
    return {}


def _headers(version="2.1", token=None):
    return {MV: version, **({"X-Auth-Token": token} if token else {})}


def _post(cloud, version="2.1", token=None, **keypair):
    return cloud.api.post("/os-keypairs", json={"keypair": keypair},
                          headers=_headers(version, token))


def test_import_list_show_delete_at_2_1(cloud):
    public = _public_key()
    created = _check(v21.create_keypair, _post(cloud, name="k1", public_key=public))
    assert created["keypair"] == {"name": "k1", "public_key": public,
                                  "fingerprint": _md5(public), "user_id": "admin"}
    listed = _check(v21.list_keypairs, cloud.api.get("/os-keypairs"))
    assert listed["keypairs"] == [{"keypair": {"name": "k1", "public_key": public,
                                               "fingerprint": _md5(public)}}]
    shown = _check(v21.get_keypair, cloud.api.get("/os-keypairs/k1"))["keypair"]
    assert (shown["deleted"], shown["deleted_at"], shown["user_id"]) == (False, None, "admin")
    _check(v21.delete_keypair, cloud.api.delete("/os-keypairs/k1"))
    missing = cloud.api.get("/os-keypairs/k1")
    assert missing.status_code == 404
    assert missing.json()["itemNotFound"]["message"] == "Keypair k1 not found for user admin"


def test_generate_returns_the_private_key_once_at_2_2(cloud):
    created = _check(v22.create_keypair, _post(cloud, "2.2", name="gen"))["keypair"]
    private = serialization.load_pem_private_key(created["private_key"].encode(), None)
    public = private.public_key().public_bytes(serialization.Encoding.OpenSSH,
                                               serialization.PublicFormat.OpenSSH).decode()
    assert created["public_key"].startswith(public)
    assert (created["type"], created["fingerprint"]) == ("ssh", _md5(created["public_key"]))
    shown = _check(v22.get_keypair, cloud.api.get("/os-keypairs/gen", headers=_headers("2.2")))
    assert "private_key" not in shown["keypair"] and shown["keypair"]["type"] == "ssh"
    _check(v22.list_keypairs, cloud.api.get("/os-keypairs", headers=_headers("2.2")))
    x509 = _check(v22.create_keypair, _post(cloud, "2.2", name="cert", type="x509"))
    assert x509["keypair"]["public_key"].startswith("-----BEGIN CERTIFICATE-----")
    assert len(x509["keypair"]["fingerprint"].split(":")) == 20  # SHA-1
    _check(v22.delete_keypair, cloud.api.delete("/os-keypairs/gen", headers=_headers("2.2")))


@pytest.mark.parametrize(("keypair", "code", "message"), [
    ({"name": "a/b"}, 400, "Invalid input for field/attribute name."),
    ({"name": " lead"}, 400, "An invalid 'name' value was provided."),
    ({"name": "k", "public_key": "ssh-rsa bm90IGEga2V5"}, 400,
     "Keypair data is invalid: failed to generate fingerprint"),
    ({"name": "k", "type": "ssh"}, 400, "Additional properties are not allowed"),
])
def test_bad_requests(cloud, keypair, code, message):
    response = _post(cloud, **keypair)
    assert response.status_code == code
    assert message in response.json()["badRequest"]["message"]


def test_duplicate_names_conflict_per_user_only(cloud):
    public = _public_key()
    assert _post(cloud, name="dup", public_key=public).status_code == 200
    again = _post(cloud, name="dup", public_key=public)
    assert again.status_code == 409
    assert again.json()["conflictingRequest"]["message"] == "Key pair 'dup' already exists."
    assert _post(cloud, token="alice:p1", name="dup", public_key=public).status_code == 200


def test_users_see_their_own_and_admins_act_for_others_from_2_10(cloud):
    public = _public_key()
    assert _post(cloud, "2.10", token="alice:p1", name="mine",
                 public_key=public).status_code == 201
    assert _post(cloud, "2.10", name="for-bob", user_id="bob",
                 public_key=public).status_code == 201
    refused = _post(cloud, "2.10", token="alice:p1", name="x", user_id="bob",
                    public_key=public)
    assert refused.status_code == 403
    assert refused.json()["forbidden"]["message"] == (
        "Policy doesn't allow os_compute_api:os-keypairs:create to be performed.")

    def names(token=None, query=""):
        response = cloud.api.get(f"/os-keypairs{query}", headers=_headers("2.10", token))
        return response.status_code, [k["keypair"]["name"] for k in
                                      response.json().get("keypairs", [])]

    assert names("alice:p1") == (200, ["mine"])
    assert names(query="?user_id=bob") == (200, ["for-bob"])
    assert names("alice:p1", "?user_id=bob")[0] == 403
    shown = cloud.api.get("/os-keypairs/for-bob?user_id=bob", headers=_headers("2.10"))
    assert shown.json()["keypair"]["user_id"] == "bob"
    assert cloud.api.delete("/os-keypairs/for-bob?user_id=bob",
                            headers=_headers("2.10")).status_code == 204


def test_paging_from_2_35(cloud):
    public = _public_key()
    for name in ("c", "a", "b"):
        assert _post(cloud, "2.35", name=name, public_key=public).status_code == 201
    first = cloud.api.get("/os-keypairs?limit=2", headers=_headers("2.35")).json()
    assert [k["keypair"]["name"] for k in first["keypairs"]] == ["a", "b"]
    assert first["keypairs_links"][0]["rel"] == "next"
    assert "marker=b" in first["keypairs_links"][0]["href"]
    rest = cloud.api.get("/os-keypairs?limit=2&marker=b", headers=_headers("2.35")).json()
    assert [k["keypair"]["name"] for k in rest["keypairs"]] == ["c"]
    assert "keypairs_links" not in rest
    bad = cloud.api.get("/os-keypairs?marker=zz", headers=_headers("2.35"))
    assert (bad.status_code, bad.json()["badRequest"]["message"]) == (
        400, "Marker zz could not be found.")
    unpaged = cloud.api.get("/os-keypairs?limit=1", headers=_headers("2.34")).json()
    assert len(unpaged["keypairs"]) == 3


def test_quota_on_key_pairs(conf, cloud):
    conf.set_override("key_pairs", 1, group="quota")
    assert _post(cloud, name="one", public_key=_public_key()).status_code == 200
    over = _post(cloud, name="two", public_key=_public_key())
    assert (over.status_code, over.json()["forbidden"]["message"]) == (
        403, "Quota exceeded, too many key pairs.")


def test_boot_with_a_key_name(cloud):
    public = _public_key()
    assert _post(cloud, name="boot-key", public_key=public).status_code == 200
    server_id = cloud.boot(key_name="boot-key")
    assert cloud.server(server_id)["key_name"] == "boot-key"
    assert instances.instance_get_view(server_id)["key_data"] == public  # for the guest
    body = {"server": {"name": "vm", "flavorRef": "1", "imageRef": images.DEFAULT_IMAGE_ID,
                       "key_name": "nope"}}
    refused = cloud.api.post("/servers", json=body)
    assert (refused.status_code, refused.json()["badRequest"]["message"]) == (
        400, "Invalid key_name provided.")
    # another user's key pair of that name is not the caller's
    refused = cloud.api.post("/servers", json={**body, "server": {**body["server"],
                                                                  "key_name": "boot-key"}},
                             headers={"X-Auth-Token": "alice:p1"})
    assert refused.status_code == 400


def test_from_2_92_a_public_key_is_required_and_names_may_hold_at_and_dot(cloud):
    generated = _post(cloud, "2.91", name="gen")
    assert generated.status_code == 201 and "private_key" in generated.json()["keypair"]
    refused = _post(cloud, "2.92", name="gen2")
    assert refused.status_code == 400
    assert "'public_key' is a required property" in refused.json()["badRequest"]["message"]
    assert _post(cloud, "2.91", name="me@host.lan", public_key=_public_key()
                 ).status_code == 400
    imported = _post(cloud, "2.92", name="me@host.lan", public_key=_public_key())
    assert imported.status_code == 201, imported.text
    assert "private_key" not in imported.json()["keypair"]
    shown = cloud.api.get("/os-keypairs/me@host.lan", headers=_headers("2.92"))
    assert shown.json()["keypair"]["name"] == "me@host.lan"


def test_unknown_query_parameters_are_a_400_from_2_75(cloud):
    assert cloud.api.get("/os-keypairs?foo=1", headers=_headers("2.74")).status_code == 200
    refused = cloud.api.get("/os-keypairs?foo=1", headers=_headers("2.75"))
    assert refused.json()["badRequest"]["message"] == (
        "Additional properties are not allowed ('foo' was unexpected)")
    assert cloud.api.get("/os-keypairs?limit=1&user_id=x", headers=_headers("2.75")
                         ).status_code in (200, 403)
