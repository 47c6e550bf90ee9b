"""Turn RPC arguments, results and exceptions into JSON-able values and back.

Registered objects travel as {"nl.object": name, "nl.version": v, "nl.data": {...}} and
datetimes as {"nl.datetime": iso}; everything else must already be JSON-able. Exceptions
from novalite.exception and novalite.rpc.errors are re-raised by class on the caller's side.
"""

from __future__ import annotations

import dataclasses
import datetime
import logging
from typing import Any

from novalite import exception
from novalite.objects import base
from novalite.rpc import errors
from novalite.rpc.errors import RemoteError

LOG = logging.getLogger(__name__)

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
        data = {f.name: serialize(getattr(value, f.name)) for f in dataclasses.fields(value)}  # type: ignore[arg-type]
        return {_OBJ: type(value).__name__, _VER: value.VERSION, _DATA: data}
    raise TypeError(f"Cannot send {type(value).__name__} over RPC: {value!r}")


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


def serialize_exception(exc: BaseException) -> dict[str, Any]:
    kwargs = getattr(exc, "kwargs", {}) if isinstance(exc, exception.NovaliteException) else {}
    return {
        "class": type(exc).__name__,
        "module": type(exc).__module__,
        "message": str(exc),
        "kwargs": {k: v if isinstance(v, str | int | float | bool) else str(v)
                   for k, v in kwargs.items()},
    }


def deserialize_exception(failure: dict[str, Any]) -> Exception:
    """Our exceptions (domain and RPC ones) come back as themselves; others as RemoteError."""
    module = {exception.__name__: exception, errors.__name__: errors}.get(failure["module"])
    cls = getattr(module, failure["class"], None) if module else None
    if isinstance(cls, type) and issubclass(cls, exception.NovaliteException):
        return cls(failure["message"], **failure.get("kwargs", {}))
    if isinstance(cls, type) and issubclass(cls, errors.MessagingError) and cls is not RemoteError:
        return cls(failure["message"])
    return RemoteError(failure["class"], failure["message"])
