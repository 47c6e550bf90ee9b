"""A stand-in placement API on loopback for the report client's unit tests: a handler
class answers, and the client is pointed at it."""

from __future__ import annotations

import contextlib
import http.server
import json
import threading
from collections.abc import Iterator


class Handler(http.server.BaseHTTPRequestHandler):
    def answer(self, status: int, body: dict | None = None) -> None:
        data = json.dumps(body).encode() if body is not None else b""
        self.send_response(status)
        if body is not None:
            self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


@contextlib.contextmanager
def serving(conf, handler: type[Handler]) -> Iterator[http.server.ThreadingHTTPServer]:
    """`handler` serving on a free port, [placement] endpoint_override aimed at it."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    conf.set_override("endpoint_override", f"http://127.0.0.1:{server.server_port}",
                      group="placement")
    try:
        yield server
    finally:
        server.shutdown()
