"""Turn RPC failures into JSON-able values and back (arguments and results go through
novalite.objects.codec). Exceptions from novalite.exception and novalite.rpc.errors are
re-raised by class on the caller's side.
"""

from __future__ import annotations

from typing import Any

from novalite import exception
from novalite.rpc import errors
from novalite.rpc.errors import RemoteError


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
