"""Registered objects and datetimes as JSON-able values, and back.

Objects travel as {"nl.object": name, "nl.version": v, "nl.data": {...}} and datetimes as
{"nl.datetime": iso}; everything else must already be JSON-able. RPC uses it for arguments
and results, and the database for what it keeps as JSON (a request spec), so it lives with
the objects rather than in either of them.
"""

from __future__ import annotations

import datetime
from typing import Any

from novalite.objects import base

_OBJ, _VER, _DATA, _DT = "nl.object", "nl.version", "nl.data", "nl.datetime"


def serialize(value: Any) -> Any:
    if value is None or isinstance(value, str | int | float | bool):
        return value
    if isinstance(value, dict):
        return {str(k): serialize(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [serialize(v) for v in value]
    if isinstance(value, datetime.datetime):
        return {_DT: value.isoformat()}
    if isinstance(value, base.NovaliteObject):
        data = {name: serialize(getattr(value, name))
                for name in base.field_names(type(value))}
        return {_OBJ: type(value).__name__, _VER: value.VERSION, _DATA: data}
    raise TypeError(f"Cannot encode {type(value).__name__} as JSON: {value!r}")


def deserialize(value: Any) -> Any:
    if isinstance(value, list):
        return [deserialize(v) for v in value]
    if not isinstance(value, dict):
        return value
    if _OBJ in value:
        cls = base.lookup(value[_OBJ])
        return cls.from_fields({k: deserialize(v) for k, v in value[_DATA].items()})
    if _DT in value and len(value) == 1:
        return datetime.datetime.fromisoformat(value[_DT])
    return {k: deserialize(v) for k, v in value.items()}
