"""Slow, salted password hashes (scrypt) and their constant-time check.

The stored form names its parameters ("scrypt$n$r$p$salt$hash"), so raising the cost
later leaves existing hashes verifiable.
"""

from __future__ import annotations

import hashlib
import hmac
import os

N, R, P = 2**14, 8, 1
SALT_BYTES = 16
KEY_BYTES = 32


def _derive(password: str, salt: bytes, n: int, r: int, p: int) -> bytes:
    return hashlib.scrypt(password.encode(), salt=salt, n=n, r=r, p=p, dklen=KEY_BYTES,
                          maxmem=2 * 128 * r * n)


def hash_password(password: str) -> str:
    salt = os.urandom(SALT_BYTES)
    return f"scrypt${N}${R}${P}${salt.hex()}${_derive(password, salt, N, R, P).hex()}"


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
