"""Key pair queries on each database backend: unique names per user, paging by name."""

import pytest

from novalite import exception
from novalite.db.api import keypairs


def _create(name, user="u1", key_type="ssh"):
    return keypairs.key_pair_create(user, name, f"ssh-ed25519 {name}", "aa:bb", key_type)


def test_names_are_unique_per_user(backend_db):
    created = _create("k")
    assert created["type"] == "ssh" and created["created_at"] is not None
    with pytest.raises(exception.KeyPairExists, match="Key pair 'k' already exists."):
        _create("k")
    assert _create("k", user="u2")["user_id"] == "u2"
    assert keypairs.key_pair_get("u2", "k")["public_key"] == "ssh-ed25519 k"
    assert _create("cert", key_type="x509")["type"] == "x509"


def test_paging_by_name_and_counting(backend_db):
    for name in ("b", "c", "a"):
        _create(name)
    _create("z", user="u2")
    names = [k["name"] for k in keypairs.key_pair_get_all_by_user("u1")]
    assert names == ["a", "b", "c"]
    page = keypairs.key_pair_get_all_by_user("u1", limit=2, marker="a")
    assert [k["name"] for k in page] == ["b", "c"]
    with pytest.raises(exception.MarkerNotFound):
        keypairs.key_pair_get_all_by_user("u1", marker="z")
    assert keypairs.key_pair_count_by_user("u1") == 3


def test_destroy(backend_db):
    _create("k")
    keypairs.key_pair_destroy("u1", "k")
    with pytest.raises(exception.KeypairNotFound, match="Keypair k not found for user u1"):
        keypairs.key_pair_get("u1", "k")
    with pytest.raises(exception.KeypairNotFound):
        keypairs.key_pair_destroy("u1", "k")
