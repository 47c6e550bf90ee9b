"""Key pair views: `type` from 2.2; show adds the record's bookkeeping fields."""

from __future__ import annotations

from typing import Any

_INDEX = ("name", "public_key", "fingerprint")
_CREATE = (*_INDEX, "user_id")


def _pick(keypair: dict[str, Any], fields: tuple[str, ...], version: tuple[int, int]) -> dict:
    body = {f: keypair[f] for f in fields}
    if version >= (2, 2):
        body["type"] = keypair["type"]
    return body


def _timestamp(value) -> str | None:
    """Nova serialises these datetimes as they are: microseconds, no zone."""
    return value.strftime("%Y-%m-%dT%H:%M:%S.%f") if value else None


def index_item(keypair: dict[str, Any], version: tuple[int, int]) -> dict:
    return {"keypair": _pick(keypair, _INDEX, version)}


def create(keypair: dict[str, Any], version: tuple[int, int]) -> dict:
    body = _pick(keypair, _CREATE, version)
    if "private_key" in keypair:
        body["private_key"] = keypair["private_key"]
    return {"keypair": body}


def show(keypair: dict[str, Any], version: tuple[int, int]) -> dict:
    body = _pick(keypair, _CREATE, version)
    # Nova's key pairs are never soft-deleted, yet it still shows these.
    body.update(id=keypair["id"], created_at=_timestamp(keypair["created_at"]),
                updated_at=_timestamp(keypair["updated_at"]), deleted=False,
                deleted_at=None)
    return {"keypair": body}
