"""Serving the ASGI app with uvicorn, in the foreground or on a background thread."""

from __future__ import annotations

import gc
import signal
import socket
import threading
import time
from typing import Any

import uvicorn

from novalite.api.app import build_app
from novalite.conf import CONF

# What [wsgi] client_socket_timeout = 0 ("until the client closes it") becomes: a timer
# uvicorn can arm, a year away.
_NO_TIMEOUT = 365 * 24 * 3600


def make_server(host: str, port: int, app: Any = None) -> uvicorn.Server:
    """uvicorn's "auto" HTTP protocol is httptools (a dependency), falling back to h11.
    Every API unless `app` names another (a service serving its API alone)."""
    config = uvicorn.Config(app or build_app(), host=host, port=port, log_config=None,
                            access_log=False, lifespan="off", timeout_graceful_shutdown=30,
                            timeout_keep_alive=CONF.wsgi.client_socket_timeout or _NO_TIMEOUT)
    return uvicorn.Server(config)


def port_problem(host: str, port: int) -> str | None:
    """Why `host:port` cannot be listened on (in use, not allowed), or None: asked before
    anything starts, so that the command can say so at once."""
    if port == 0:
        return None
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
        try:
            sock.bind((host, port))
        except OSError as exc:
            return exc.strerror or str(exc)
    return None


def freeze_heap() -> None:
    """Leave what start-up made (modules, routes, table metadata: hundreds of thousands
    of objects living as long as the process) out of the collector's full passes, each
    of which would otherwise stall a request by tens of milliseconds. Called once a
    process has started everything it serves with."""
    gc.collect()
    gc.freeze()


def run_foreground(server: uvicorn.Server) -> None:
    """Serve until SIGINT/SIGTERM; return (not die) so the caller can stop its services.

    uvicorn re-raises the signal it caught once it has shut down; with our own handlers in
    place that lands here instead of killing the process before a graceful stop.
    """
    previous = {sig: signal.signal(sig, lambda *_: None) for sig in (signal.SIGINT,
                                                                     signal.SIGTERM)}
    try:
        server.run()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def wait_for_signal(thread: threading.Thread) -> None:
    """Block until SIGINT or SIGTERM (or the server started by start_in_thread ends);
    the caller then stops its services and the server (`stop`), in its order."""
    stop = threading.Event()
    previous = {sig: signal.signal(sig, lambda *_: stop.set()) for sig in (signal.SIGINT,
                                                                           signal.SIGTERM)}
    try:
        while thread.is_alive() and not stop.wait(0.5):
            pass
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def stop(server: uvicorn.Server, thread: threading.Thread | None) -> None:
    """Stop the server started by start_in_thread; requests in flight finish first."""
    server.should_exit = True
    if thread is not None:
        thread.join()


def start_in_thread(server: uvicorn.Server, timeout: float = 30) -> threading.Thread:
    thread = threading.Thread(target=server.run, name="http", daemon=True)
    thread.start()
    deadline = time.monotonic() + timeout
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError(f"The HTTP server did not start on port "
                               f"{server.config.port}; is the port already in use?")
        time.sleep(0.02)
    return thread


def bound_port(server: uvicorn.Server) -> int:
    """The port actually bound (useful when asked for port 0)."""
    return server.servers[0].sockets[0].getsockname()[1]
