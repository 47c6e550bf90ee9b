import os

import pytest
from cryptography.fernet import Fernet, InvalidToken

from novalite.identity import fernet_keys


def test_setup_creates_staged_and_primary_keys_once(conf):
    assert fernet_keys.setup()
    path = fernet_keys.repository()
    assert sorted(os.listdir(path)) == ["0", "1"]
    assert os.stat(os.path.join(path, "1")).st_mode & 0o777 == 0o600
    assert not fernet_keys.setup()


def test_rotation_promotes_the_staged_key_and_keeps_max_active_keys(conf):
    fernet_keys.setup()
    path = fernet_keys.repository()
    with open(os.path.join(path, "0"), "rb") as f:
        staged = f.read()
    assert fernet_keys.rotate() == [0, 1, 2]
    with open(os.path.join(path, "2"), "rb") as f:
        assert f.read() == staged
    assert fernet_keys.rotate() == [0, 2, 3]  # max_active_keys = 3


def test_tokens_survive_one_rotation_within_max_active_keys(conf):
    conf.set_override("max_active_keys", 3, group="fernet_tokens")
    fernet_keys.setup()
    sealed = fernet_keys.load().encrypt(b"payload")
    fernet_keys.rotate()
    assert fernet_keys.load().decrypt(sealed) == b"payload"
    fernet_keys.rotate()
    with pytest.raises(InvalidToken):
        fernet_keys.load().decrypt(sealed)


def test_a_token_sealed_by_the_staged_key_is_accepted(conf):
    """Another API process may already sign with a key this one only has staged."""
    fernet_keys.setup()
    with open(os.path.join(fernet_keys.repository(), "0"), "rb") as f:
        sealed = Fernet(f.read()).encrypt(b"x")
    assert fernet_keys.load().decrypt(sealed) == b"x"


def test_rotate_without_keys_says_what_to_run(conf):
    with pytest.raises(FileNotFoundError, match="fernet setup"):
        fernet_keys.rotate()
