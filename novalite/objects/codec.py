"""Registered objects and datetimes as JSON-able values, and back.

Objects travel as {"nl.object": name, "nl.version": v, "nl.data": {...}} and datetimes as
{"nl.datetime": iso}; everything else must already be JSON-able. RPC uses it for arguments
and results, and the database for what it keeps as JSON (a request spec), so it lives with
the objects rather than in either of them.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import Any

from novalite.objects import base

_OBJ, _VER, _DATA, _DT = "nl.object", "nl.version", "nl.data", "nl.datetime"
# Values that travel as they are. A value of one of these exact types is passed over
# inline, without a call: most of an object's fields are, and a call per field was half
# of what a build's RPC spent encoding and decoding.
_AS_IS = frozenset({str, int, float, bool, type(None)})


def serialize(value: Any) -> Any:
    kind = type(value)
    if kind in _AS_IS:
        return value
    encode = _ENCODERS.get(kind) or _encoder(kind)
    if encode is None:
        raise TypeError(f"Cannot encode {kind.__name__} as JSON: {value!r}")
    return encode(value)


def _dict(value: dict[Any, Any]) -> dict[str, Any]:
    return {str(k): v if type(v) in _AS_IS else serialize(v) for k, v in value.items()}


def _list(value: Any) -> list[Any]:
    return [v if type(v) in _AS_IS else serialize(v) for v in value]


def _datetime(value: datetime.datetime) -> dict[str, str]:
    return {_DT: value.isoformat()}


def _object(value: base.NovaliteObject) -> dict[str, Any]:
    data = {}
    for name in base.field_names(type(value)):
        field = getattr(value, name)
        data[name] = field if type(field) in _AS_IS else serialize(field)
    return {_OBJ: type(value).__name__, _VER: value.VERSION, _DATA: data}


def _as_is(value: Any) -> Any:
    return value


def _encoder(kind: type) -> Callable[[Any], Any] | None:
    """How values of `kind` are encoded (None: they cannot be), found once per type (a
    subclass of a scalar, a dict or a list is encoded as its base is)."""
    for base_kind, encode in ((str | int | float | bool, _as_is), (dict, _dict),
                              (list | tuple | set | frozenset, _list),
                              (datetime.datetime, _datetime),
                              (base.NovaliteObject, _object)):
        if issubclass(kind, base_kind):
            _ENCODERS[kind] = encode
            return encode
    return None


_ENCODERS: dict[type, Callable[[Any], Any]] = {}


def deserialize(value: Any) -> Any:
    if isinstance(value, list):
        return [v if type(v) in _AS_IS else deserialize(v) for v in value]
    if not isinstance(value, dict):
        return value
    if _OBJ in value:
        cls = base.lookup(value[_OBJ])
        return cls.from_fields({k: v if type(v) in _AS_IS else deserialize(v)
                                for k, v in value[_DATA].items()})
    if _DT in value and len(value) == 1:
        return datetime.datetime.fromisoformat(value[_DT])
    return {k: v if type(v) in _AS_IS else deserialize(v) for k, v in value.items()}
