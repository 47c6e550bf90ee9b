"""Logging set-up: every line carries the request id of the work it belongs to."""

from __future__ import annotations

import logging
import sys

from novalite import context

FORMAT = "%(asctime)s %(process)d %(levelname)s %(name)s [%(request_id)s] %(message)s"


class RequestIdFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        ctx = context.current()
        record.request_id = ctx.request_id if ctx else "-"
        return True


def _record_only_what_is_shown() -> None:
    """A record looks up its caller's file and line (walking the stack), its thread and
    its process's multiprocessing name unless told not to (the logging module's own
    switches for this); FORMAT shows none of them, and each user request logs a line."""
    logging._srcfile = None
    logging.logThreads = False
    logging.logMultiprocessing = False


def setup(debug: bool = False, log_file: str | None = None) -> None:
    _record_only_what_is_shown()
    root = logging.getLogger()
    for old in list(root.handlers):
        if getattr(old, "_novalite", False):
            root.removeHandler(old)
    handler: logging.Handler
    handler = logging.FileHandler(log_file) if log_file else logging.StreamHandler(sys.stderr)
    # a marker, so that setup() again replaces only its own handler
    handler._novalite = True  # type: ignore[union-attr]
    handler.setFormatter(logging.Formatter(FORMAT))
    handler.addFilter(RequestIdFilter())
    root.addHandler(handler)
    root.setLevel(logging.DEBUG if debug else logging.INFO)
    for noisy in ("amqp", "kombu", "uvicorn.access", "alembic"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
