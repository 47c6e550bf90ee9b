"""A message's bytes on the wire, for every transport: JSON, encoded by orjson.

The in-process transport copies each message through these bytes too (so nothing works
in the all-in-one that would fail over a broker), and a boot storm's messages spent 5 %
of the all-in-one's interpreter time in the standard library's encoder and decoder.
What the standard library refuses is refused here as well: datetimes, dataclasses, sets
and other objects are a TypeError (the object codec turns them into plain values
first); non-string keys become strings, as the standard library makes them.
"""

from __future__ import annotations

from typing import Any

import orjson

_OPTIONS = orjson.OPT_NON_STR_KEYS | orjson.OPT_PASSTHROUGH_DATETIME | \
    orjson.OPT_PASSTHROUGH_DATACLASS


def _refuse(value: Any) -> Any:
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def encode(message: Any) -> bytes:
    return orjson.dumps(message, default=_refuse, option=_OPTIONS)


def decode(body: bytes | str) -> Any:
    """The message in `body`; what is not JSON is a ValueError."""
    return orjson.loads(body)


def identity(message: Any) -> str:
    """The same text for equal messages, whatever the order of their keys."""
    return orjson.dumps(message, default=_refuse,
                        option=_OPTIONS | orjson.OPT_SORT_KEYS).decode()
