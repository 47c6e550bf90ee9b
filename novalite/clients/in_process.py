"""HTTP requests to the all-in-one's own ASGI app, called in the caller's thread: no
socket, no HTTP parsing, no event loop thread and no hop to a handler thread.

Through loopback, a placement claim from the scheduler cost a write and a read on each
side, uvicorn's parsing and its event loop's turn (shared with every user's request),
and a hop to a worker thread and back: half of the server's CPU for a small request. The
app still does everything it does for a request from the network (authentication,
policy, microversions, faults, the access log); only the transport is gone. It is the
transport of novalite.clients.local_http for the groups the all-in-one serves itself.
"""

from __future__ import annotations

import contextvars
import urllib.parse
from typing import Any

from novalite.clients.http1 import Answer, Headers

# Set in a request's scope: the endpoint runs the handler in the calling thread, and
# takes and gives bodies whole (novalite.api.request), so that the app never waits.
INLINE = "novalite.inline"


class Suspended(RuntimeError):
    """The app waited on something while serving an in-process request."""


class AppPool:
    """What LocalClient sends through (as http1.Pool) to the app serving `host:port`."""

    def __init__(self, app: Any, host: str, port: int) -> None:
        self._app = app
        self._server = (host, port)
        self._authority = f"{host}:{port}".encode("latin-1")

    def request(self, method: str, path: str, body: bytes | None,
                headers: dict[str, str]) -> Answer:
        target = urllib.parse.urlsplit(path)
        raw_headers = [(b"host", self._authority)] + [
            (name.lower().encode("latin-1"), value.encode("latin-1"))
            for name, value in headers.items()]
        if body is not None or method in ("POST", "PUT", "PATCH"):
            raw_headers.append((b"content-length", str(len(body or b"")).encode()))
        # ASGI 2.4: a response is not raced against a disconnect that cannot come
        scope = {"type": "http", "asgi": {"version": "3.0", "spec_version": "2.4"},
                 "http_version": "1.1", "method": method, "scheme": "http",
                 "path": urllib.parse.unquote(target.path),
                 "raw_path": target.path.encode("latin-1"),
                 "query_string": target.query.encode("latin-1"), "root_path": "",
                 "headers": raw_headers, "server": self._server, "client": None,
                 INLINE: True}
        answer = Answer(0, Headers(), b"")
        chunks: list[bytes] = []

        async def receive() -> dict[str, Any]:
            return {"type": "http.request", "body": body or b"", "more_body": False}

        async def send(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                answer.status = message["status"]
                for name, value in message.get("headers", ()):
                    answer.headers.add(name.decode("latin-1"), value.decode("latin-1"))
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))

        _complete(self._app(scope, receive, send), f"{method} {target.path}")
        answer.body = b"".join(chunks)
        return answer


def _complete(call: Any, what: str) -> None:
    """Run the app's coroutine to its end in one step, in a copy of the caller's context
    (as a task would: what the request sets stays with it). Nothing it awaits for an
    inline request waits, so no event loop is needed, and one call may make another (a
    handler calling another service of the process)."""
    try:
        contextvars.copy_context().run(call.send, None)
    except StopIteration:
        return
    call.close()
    raise Suspended(f"the app waited while serving {what} in-process")
