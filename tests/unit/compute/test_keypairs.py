"""Key pair rules: Nova's fingerprints, generated pairs, and the per-user quota."""

import base64
import hashlib

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ed25519

from novalite import exception
from novalite.compute import keypairs
from novalite.db.api import keypairs as db_keypairs

# a key made by ssh-keygen, and what `ssh-keygen -l -E md5` printed for it
RSA_KEY = ("ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAAAgQC5g3+mQN3Sf7edgBgaxO2iBMHw/RKELNyuLw5N4j/"
           "nC+v0UTU4q+LRLFz/5zsWeiYSECPmKOymsptOkBy15SgWqaFoCi4OVh0Y5gSZSPCyUSkPthc+//Peh"
           "WPZqKUvg2MZyd8/e2qbEidbTJpyZBuRSGTnERkfAprY1xLGQBG0jQ== test@novalite")
RSA_FINGERPRINT = "3d:a4:83:5a:b3:be:b8:a8:7c:d8:22:8a:43:83:6c:04"


def test_fingerprint_is_md5_of_the_key_blob():
    assert keypairs.ssh_fingerprint(RSA_KEY) == RSA_FINGERPRINT
    key = ed25519.Ed25519PrivateKey.generate().public_key().public_bytes(
        serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH).decode()
    digest = hashlib.md5(base64.b64decode(key.split()[1])).hexdigest()
    assert keypairs.ssh_fingerprint(key).replace(":", "") == digest


@pytest.mark.parametrize("bad", ["", "ssh-rsa", "ssh-rsa !!!", "not a key at all"])
def test_unparsable_keys_are_invalid(bad):
    with pytest.raises(exception.InvalidKeypair,
                       match="Keypair data is invalid: failed to generate fingerprint"):
        keypairs.ssh_fingerprint(bad)
    with pytest.raises(exception.InvalidKeypair, match="X509 fingerprint"):
        keypairs.x509_fingerprint(bad)


def test_generated_pairs(db):
    pair = keypairs.create_key_pair("u1", "gen")
    private = serialization.load_pem_private_key(pair["private_key"].encode(), None)
    assert pair["public_key"].endswith(" Generated-by-Nova")
    assert private.public_key().public_bytes(
        serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH
    ).decode() in pair["public_key"]
    assert "private_key" not in db_keypairs.key_pair_get("u1", "gen")
    cert = keypairs.create_key_pair("u1", "cert", keypairs.X509)
    assert cert["fingerprint"] == keypairs.x509_fingerprint(cert["public_key"])


def test_the_quota_is_per_user(conf, db):
    conf.set_override("key_pairs", 1, group="quota")
    keypairs.import_key_pair("u1", "one", RSA_KEY)
    with pytest.raises(exception.KeypairLimitExceeded,
                       match="Quota exceeded, too many key pairs."):
        keypairs.import_key_pair("u1", "two", RSA_KEY)
    with pytest.raises(exception.KeypairLimitExceeded):
        keypairs.create_key_pair("u1", "three")
    keypairs.import_key_pair("u2", "one", RSA_KEY)
    conf.set_override("key_pairs", -1, group="quota")
    keypairs.import_key_pair("u1", "two", RSA_KEY)
