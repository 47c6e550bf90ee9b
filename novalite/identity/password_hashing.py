"""Slow, salted password hashes (scrypt) and their constant-time check.

The stored form names its parameters ("scrypt$n$r$p$salt$hash"), so raising the cost
later leaves existing hashes verifiable.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import os

from novalite.conf import CONF

R, P = 8, 1
SALT_BYTES = 16
KEY_BYTES = 32


def _derive(password: str, salt: bytes, n: int, r: int, p: int) -> bytes:
    return hashlib.scrypt(password.encode(), salt=salt, n=n, r=r, p=p, dklen=KEY_BYTES,
                          maxmem=2 * 128 * r * n)


def hash_password(password: str) -> str:
    return _hash(password, CONF.identity.password_hash_rounds)


def dummy_hash() -> str:
    """A hash at the current cost to check a password against when the user does not
    exist, so that the time taken does not tell whether the name is known."""
    return _dummy(CONF.identity.password_hash_rounds)


@functools.cache
def _dummy(rounds: int) -> str:
    return _hash("novalite", rounds)


def _hash(password: str, rounds: int) -> str:
    """Hashed at cost 2**rounds (Keystone's password_hash_rounds for scrypt)."""
    n = 2 ** rounds
    salt = os.urandom(SALT_BYTES)
    return f"scrypt${n}${R}${P}${salt.hex()}${_derive(password, salt, n, R, P).hex()}"


def check_password(password: str, hashed: str | None) -> bool:
    """False for a missing or malformed hash: such a user cannot log in with a password."""
    try:
        scheme, n, r, p, salt, digest = (hashed or "").split("$")
        if scheme != "scrypt":
            return False
        computed = _derive(password, bytes.fromhex(salt), int(n), int(r), int(p))
    except ValueError:
        return False
    return hmac.compare_digest(computed, bytes.fromhex(digest))
