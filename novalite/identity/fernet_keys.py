"""The Fernet key repository, laid out as Keystone's: one file per key, named by index.

Key 0 is staged (the next primary, already accepted so that every API knows it before
it signs anything), the highest index is the primary that signs new tokens, and the ones
between are secondaries that still validate tokens signed before a rotation.
"""

from __future__ import annotations

import os

from cryptography.fernet import Fernet, MultiFernet

from novalite.conf import CONF


def repository() -> str:
    return CONF.fernet_tokens.key_repository or os.path.join(CONF.state_path, "fernet-keys")


def _indexes(path: str) -> list[int]:
    if not os.path.isdir(path):
        return []
    return sorted(int(name) for name in os.listdir(path) if name.isdigit())


def _write_key(path: str, index: int, key: bytes) -> None:
    """Atomically, readable by the owner only."""
    tmp = os.path.join(path, f".{index}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(key)
    os.replace(tmp, os.path.join(path, str(index)))


def setup() -> bool:
    """Create the repository with a staged and a primary key; False if it has keys."""
    path = repository()
    os.makedirs(path, mode=0o700, exist_ok=True)
    if _indexes(path):
        return False
    _write_key(path, 0, Fernet.generate_key())
    rotate()
    return True


def rotate() -> list[int]:
    """Promote the staged key to primary, stage a new one, drop the oldest secondaries
    beyond [fernet_tokens] max_active_keys. Returns the indexes kept."""
    path = repository()
    indexes = _indexes(path)
    if not indexes:
        raise FileNotFoundError(f"No Fernet keys in {path}; run 'novalite-manage fernet setup'")
    os.replace(os.path.join(path, "0"), os.path.join(path, str(max(indexes) + 1)))
    _write_key(path, 0, Fernet.generate_key())
    indexes = _indexes(path)
    secondaries = indexes[1:-1]
    excess = len(indexes) - max(CONF.fernet_tokens.max_active_keys, 2)
    for index in secondaries[:max(excess, 0)]:
        os.remove(os.path.join(path, str(index)))
    return _indexes(path)


def load() -> MultiFernet:
    """Primary first (it signs), then the others newest first, staged last."""
    path = repository()
    indexes = _indexes(path)
    if not indexes:
        raise FileNotFoundError(f"No Fernet keys in {path}; run 'novalite-manage fernet setup'")
    order = sorted((i for i in indexes if i), reverse=True) + [0]
    keys = []
    for index in order:
        with open(os.path.join(path, str(index)), "rb") as f:
            keys.append(Fernet(f.read().strip()))
    return MultiFernet(keys)
