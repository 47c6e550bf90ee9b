"""ExceptionPayload: the fault of an .error notification, and compute.exception's payload."""

from __future__ import annotations

import traceback

from novalite.notifications.objects.base import Payload, payload


@payload
class ExceptionPayload(Payload):
    NAME = "ExceptionPayload"
    VERSION = "1.1"  # 1.1: traceback

    module_name: str
    function_name: str
    exception: str
    exception_message: str
    traceback: str

    @classmethod
    def from_exception(cls, exc: BaseException) -> ExceptionPayload:
        """Named for where the exception was raised (the innermost frame of its
        traceback), its traceback's lines joined by commas, as Nova joins them."""
        tb = exc.__traceback__
        while tb is not None and tb.tb_next is not None:
            tb = tb.tb_next
        frame = tb.tb_frame if tb is not None else None
        return cls(
            module_name=frame.f_globals.get("__name__", "unknown") if frame else "unknown",
            function_name=frame.f_code.co_name if frame else "unknown",
            exception=type(exc).__name__,
            exception_message=_message(exc),
            traceback=",".join(traceback.format_exception(exc)))


def _message(exc: BaseException) -> str:
    """Our exceptions' own message (what the API shows), others' str()."""
    format_message = getattr(exc, "format_message", None)
    return format_message() if callable(format_message) else str(exc)
